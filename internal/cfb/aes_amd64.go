//go:build !purego

package cfb

import "github.com/pgpstream/pgpstream/internal/hwf"

const (
	asmName  = "aes-ni asm (8 blocks/pass decrypt, serial encrypt)"
	wideName = "vaes avx2 asm (16 blocks/pass decrypt), aes-ni serial encrypt"
)

func hasAES() bool { return hwf.Has(hwf.AES) }

// hasWide reports VAES with AVX2, for the ymm decryption loop; CPUs with
// AVX-512 run it too (there is no zmm loop for CFB).
func hasWide() bool { return hwf.Has(hwf.VAES) && hwf.Has(hwf.AVX2) }
