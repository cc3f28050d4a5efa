//go:build !purego

package cfb

import "github.com/pgpstream/pgpstream/internal/hwf"

const asmName = "aes-ni asm (8 blocks/pass decrypt, serial encrypt)"

func hasAES() bool { return hwf.Has(hwf.AES) }
