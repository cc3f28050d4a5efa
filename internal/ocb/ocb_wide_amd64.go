//go:build !purego

package ocb

import "github.com/pgpstream/pgpstream/internal/hwf"

func hasAES() bool { return hwf.Has(hwf.AES) }

func hwName() string {
	if !hasAES() {
		return ""
	}
	switch pickWide() {
	case wideAVX512:
		return "vaes avx512 asm (16 blocks/pass; AD hash aes-ni, 8)"
	case wideAVX2:
		return "vaes avx2 asm (16 blocks/pass; AD hash aes-ni, 8)"
	}
	return "aes-ni asm (8 blocks/pass)"
}

// pickWide chooses among the three loops by what the CPU has and the user
// left on: --disable-hwf avx512 falls back to the ymm loop, vaes (or avx2)
// to the 8-block AES-NI loop.
func pickWide() wideKind {
	switch {
	case !hwf.Has(hwf.VAES):
		return wideNone
	case hwf.Has(hwf.AVX512):
		return wideAVX512
	case hwf.Has(hwf.AVX2):
		return wideAVX2
	}
	return wideNone
}

func hasWide() bool { return pickWide() != wideNone }

func (k *hwKey) sealWide(o *ocbAEAD, s *state, dst, src []byte) {
	if k.wide == wideAVX512 {
		sealBlocks16(k.nr, &k.enc, &o.pre, &o.l, &s.oc, s.idx, dst, src)
	} else {
		sealBlocksY(k.nr, &k.enc, &o.pre, &o.l, &s.oc, s.idx, dst, src)
	}
}

func (k *hwKey) openWide(o *ocbAEAD, s *state, dst, src []byte) {
	if k.wide == wideAVX512 {
		openBlocks16(k.nr, &k.dec, &o.pre, &o.l, &s.oc, s.idx, dst, src)
	} else {
		openBlocksY(k.nr, &k.dec, &o.pre, &o.l, &s.oc, s.idx, dst, src)
	}
}
