//go:build amd64 || arm64

package inflate

import "unsafe"

// The fast loop's loads and stores, without bounds checks: on these
// little-endian machines with unaligned access a word load is one
// instruction. Callers keep every index within the slice: the fast loop
// runs only with fastIn bytes of input and fastRoom bytes of output room
// left, and a distance is checked against the output before any copy.

func load64(b []byte, i int) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

func store64(b []byte, i int, v uint64) {
	*(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = v
}

func load8(b []byte, i int) byte {
	return *(*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

func store8(b []byte, i int, v byte) {
	*(*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = v
}
