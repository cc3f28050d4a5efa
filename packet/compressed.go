package packet

import (
	"fmt"
	"strings"
)

// CompressionAlgo is a compression algorithm id (RFC 9580 §9.4).
type CompressionAlgo uint8

const (
	CompressNone  CompressionAlgo = 0
	CompressZIP   CompressionAlgo = 1 // raw DEFLATE, RFC 1951
	CompressZLIB  CompressionAlgo = 2 // RFC 1950
	CompressBZIP2 CompressionAlgo = 3
)

func (a CompressionAlgo) String() string {
	switch a {
	case CompressNone:
		return "none"
	case CompressZIP:
		return "ZIP"
	case CompressZLIB:
		return "ZLIB"
	case CompressBZIP2:
		return "BZIP2"
	}
	return fmt.Sprintf("unknown compression algorithm %d", uint8(a))
}

// ParseCompressionAlgo accepts gpg's spellings: names and numbers.
func ParseCompressionAlgo(s string) (CompressionAlgo, error) {
	switch strings.ToLower(s) {
	case "none", "uncompressed", "0":
		return CompressNone, nil
	case "zip", "1":
		return CompressZIP, nil
	case "zlib", "2":
		return CompressZLIB, nil
	case "bzip2", "3":
		return CompressBZIP2, nil
	}
	return 0, fmt.Errorf("unknown compression algorithm %q (use none, zip, zlib or bzip2)", s)
}
