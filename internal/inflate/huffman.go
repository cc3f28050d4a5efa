package inflate

// Decode tables (RFC 1951 section 3.2.2, canonical Huffman codes).
//
// A table is indexed by the next bits of the stream (least significant bit
// first, so by the bit-reversed code). One entry tells everything needed
// for a symbol in one lookup: how many bits to drop (the code and, for a
// length or distance, its extra bits too), where the extra bits start, and
// the literal byte or the base length or distance. Codes longer than the
// primary index point to a subtable, indexed by the bits after the first
// primaryBits.
//
// Entry layout (uint32):
//
//	bits  0..7   bits to consume: code length + extra bits (primary bits for a subtable link)
//	bits  8..11  code length, where the extra bits start (subtable index bits for a link)
//	bits 12..27  literal byte, base length or distance, or subtable offset
//	bit  28      end of block
//	bit  29      subtable link
//	bit  30      exceptional: link, end of block, or invalid symbol (neither)
//	bit  31      literal
const (
	fEOB uint32 = 1 << 28
	fSub uint32 = 1 << 29
	fExc uint32 = 1 << 30
	fLit uint32 = 1 << 31

	invalidEntry = fExc
)

const (
	maxCodeLen = 15

	litBits  = 11 // primary index bits of the literal/length table
	distBits = 8  // of the distance table
	preBits  = 7  // of the code-length code; its codes are at most 7 bits

	numLit  = 288 // literal/length symbols the fixed code defines (286 and 287 invalid)
	numDist = 32  // distance symbols the fixed code defines (30 and 31 invalid)

	// Worst-case table sizes: the primary table plus one subtable of
	// 2^(15-primary) entries per symbol (each subtable holds at least one).
	litTableSize  = 1<<litBits + numLit<<(maxCodeLen-litBits)
	distTableSize = 1<<distBits + numDist<<(maxCodeLen-distBits)
	preTableSize  = 1 << preBits

	litMask  = 1<<litBits - 1
	distMask = 1<<distBits - 1
	preMask  = 1<<preBits - 1
)

type (
	litTable  [litTableSize]uint32
	distTable [distTableSize]uint32
	preTable  [preTableSize]uint32
)

// Symbol templates: the entry without its bit counts, and the extra bits.
var (
	litTmpl   [numLit]uint32
	litExtra  [numLit]uint8
	distTmpl  [numDist]uint32
	distExtra [numDist]uint8
	preTmpl   [19]uint32
	noExtra   [19]uint8

	fixedLit  litTable
	fixedDist distTable
)

func init() {
	// RFC 1951 section 3.2.5: length codes 257..285.
	base, extra := 3, 0
	for s := 0; s < numLit; s++ {
		switch {
		case s < 256:
			litTmpl[s] = fLit | uint32(s)<<12
		case s == 256:
			litTmpl[s] = fExc | fEOB
		case s <= 284:
			i := s - 257
			if i >= 8 {
				extra = i/4 - 1
			}
			litTmpl[s] = uint32(base) << 12
			litExtra[s] = uint8(extra)
			base += 1 << extra
		case s == 285:
			litTmpl[s] = 258 << 12
		default:
			litTmpl[s] = invalidEntry
		}
	}
	base, extra = 1, 0
	for s := 0; s < numDist; s++ {
		if s >= 30 {
			distTmpl[s] = invalidEntry
			continue
		}
		if s >= 4 {
			extra = s/2 - 1
		}
		distTmpl[s] = uint32(base) << 12
		distExtra[s] = uint8(extra)
		base += 1 << extra
	}
	for s := range preTmpl {
		preTmpl[s] = uint32(s) << 12
	}

	// RFC 1951 section 3.2.6.
	var lens [numLit]uint8
	for s := range lens {
		switch {
		case s < 144:
			lens[s] = 8
		case s < 256:
			lens[s] = 9
		case s < 280:
			lens[s] = 7
		default:
			lens[s] = 8
		}
	}
	if !build(fixedLit[:], litBits, lens[:], litTmpl[:], litExtra[:]) {
		panic("inflate: fixed literal/length code")
	}
	var dlens [numDist]uint8
	for s := range dlens {
		dlens[s] = 5
	}
	if !build(fixedDist[:], distBits, dlens[:], distTmpl[:], distExtra[:]) {
		panic("inflate: fixed distance code")
	}
}

// build fills t with the decode table of the code with lengths lens (a
// length of 0: the symbol is unused). It reports false for a code that is
// over-subscribed or incomplete, except that, as zlib does, a code of a
// single one-bit symbol and a code with no symbols at all are accepted: the
// unassigned bit patterns decode as invalid symbols.
func build(t []uint32, primary uint, lens []uint8, tmpl []uint32, extra []uint8) bool {
	var count [maxCodeLen + 1]int
	maxLen := 0
	for _, l := range lens {
		count[l]++
		maxLen = max(maxLen, int(l))
	}
	count[0] = 0
	left := 1 // bit patterns left at the current length (Kraft)
	for l := 1; l <= maxCodeLen; l++ {
		left <<= 1
		left -= count[l]
		if left < 0 {
			return false
		}
	}
	nsyms := len(lens) - countZero(lens)
	if left > 0 && nsyms > 1 || left > 0 && nsyms == 1 && maxLen != 1 {
		return false
	}
	size := 1 << primary
	if left > 0 || maxLen == 0 {
		for i := range t[:size] {
			t[i] = invalidEntry
		}
	}
	if maxLen == 0 {
		return true
	}

	// Symbols sorted by code length, then by value: canonical order.
	var offs [maxCodeLen + 2]int
	for l := 1; l <= maxCodeLen; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var sorted [numLit]uint16
	for s, l := range lens {
		if l != 0 {
			sorted[offs[l]] = uint16(s)
			offs[l]++
		}
	}

	subBits := uint(0)
	if uint(maxLen) > primary {
		subBits = uint(maxLen) - primary
	}
	// Codes up to primary bits: place each once in the table of its own
	// length, then double the table (a copy) before the next length; the
	// doubling replicates every entry to all the indexes its code
	// prefixes. Canonical codes of later lengths only take indexes no
	// shorter code owns.
	i := 0
	code := 0 // canonical code, most significant bit first
	for l := 1; l <= int(primary); l++ {
		for k := 0; k < count[l]; k++ {
			s := sorted[i]
			i++
			t[reverse(code, l)] = tmpl[s] | uint32(l)<<8 | uint32(l+int(extra[s]))
			code++
		}
		if l < int(primary) {
			copy(t[1<<l:2<<l], t[:1<<l])
		}
		code <<= 1
	}
	next := size // where the next subtable goes
	curPrefix := -1
	subStart := 0
	for l := int(primary) + 1; l <= maxLen; l++ {
		for k := 0; k < count[l]; k++ {
			s := sorted[i]
			i++
			rev := reverse(code, l)
			code++
			prefix := rev & (size - 1)
			if prefix != curPrefix {
				curPrefix = prefix
				subStart = next
				next += 1 << subBits
				if left > 0 {
					for j := subStart; j < next; j++ {
						t[j] = invalidEntry
					}
				}
				t[prefix] = fExc | fSub | uint32(subStart)<<12 | uint32(subBits)<<8 | uint32(primary)
			}
			sl := l - int(primary)
			e := tmpl[s] | uint32(sl)<<8 | uint32(sl+int(extra[s]))
			for j := rev >> primary; j < 1<<subBits; j += 1 << sl {
				t[subStart+j] = e
			}
		}
		code <<= 1
	}
	return true
}

func countZero(lens []uint8) int {
	n := 0
	for _, l := range lens {
		if l == 0 {
			n++
		}
	}
	return n
}

// reverse returns the low n bits of c in reverse order.
func reverse(c, n int) int {
	r := 0
	for ; n > 0; n-- {
		r = r<<1 | c&1
		c >>= 1
	}
	return r
}
