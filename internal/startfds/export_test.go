package startfds

// For the tests in package startfds_test; this file imports nothing, so
// the package under test still imports only syscall and is initialised
// as early as in a program (see the package comment).
var (
	FromProc = fromProc
	ByFcntl  = byFcntl
)

const FDBound = fdBound
