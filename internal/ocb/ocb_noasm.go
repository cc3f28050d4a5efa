//go:build (!amd64 && !arm64) || purego

package ocb

// hwKey has no assembly behind it on this build; newHWKey never returns one,
// so its methods are unreachable.
type hwKey struct{ wide wideKind }

func hwName() string { return "" }

func hasWide() bool { return false }

func newHWKey([]byte) *hwKey { return nil }

func (*hwKey) encrypt8(*[8]block)                        { panic("ocb: no assembly") }
func (*hwKey) decrypt8(*[8]block)                        { panic("ocb: no assembly") }
func (*hwKey) sealBulk(*ocbAEAD, *state, []byte, []byte) { panic("ocb: no assembly") }
func (*hwKey) openBulk(*ocbAEAD, *state, []byte, []byte) { panic("ocb: no assembly") }
func (*hwKey) hashBulk(*ocbAEAD, *state, []byte)         { panic("ocb: no assembly") }
