package main

import (
	"fmt"
	"runtime"
)

func printVersion(st *state) error {
	fmt.Fprintf(st.stdout, "pgpstream %s\n", version)
	fmt.Fprintf(st.stdout, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
