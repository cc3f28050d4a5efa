module github.com/pgpstream/pgpstream/internal/cfb/asm

go 1.26.0

require github.com/mmcloughlin/avo v0.6.0

// avo v0.6.0 asks for x/tools v0.16.1, which no longer compiles with current
// Go; the newer x/tools below is what makes `go run` work.
require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
