//go:build !purego

package eax

import "github.com/pgpstream/pgpstream/internal/hwf"

const asmName = "aes-ni asm OMAC"

func hasAES() bool { return hwf.Has(hwf.AES) }
