//go:build !(amd64 || arm64)

package inflate

import "encoding/binary"

func load64(b []byte, i int) uint64     { return binary.LittleEndian.Uint64(b[i:]) }
func store64(b []byte, i int, v uint64) { binary.LittleEndian.PutUint64(b[i:], v) }
func load8(b []byte, i int) byte        { return b[i] }
func store8(b []byte, i int, v byte)    { b[i] = v }
