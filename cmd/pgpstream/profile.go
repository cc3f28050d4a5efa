package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pkg/profile"
	"github.com/urfave/cli/v2"
)

// profileFlags are the profiling hooks every command takes, with the file
// name pkg/profile gives each kind inside its output directory.
var profileFlags = []struct {
	flag, file string
	mode       func(*profile.Profile)
	usage      string
}{
	{"cpuprofile", "cpu.pprof", profile.CPUProfile, "write a CPU profile to FILE (read it with go tool pprof -top FILE)"},
	{"memprofile", "mem.pprof", profile.MemProfileAllocs, "write an allocation profile to FILE"},
	{"blockprofile", "block.pprof", profile.BlockProfile, "write a goroutine blocking profile to FILE"},
	{"mutexprofile", "mutex.pprof", profile.MutexProfile, "write a mutex contention profile to FILE"},
	{"trace", "trace.out", profile.TraceProfile, "write an execution trace to FILE (read it with go tool trace FILE)"},
}

func profilingFlags(category string) []cli.Flag {
	var out []cli.Flag
	for _, p := range profileFlags {
		out = append(out, &cli.StringFlag{Name: p.flag, Usage: p.usage, TakesFile: true, Category: category})
	}
	return out
}

// withProfile wraps a command's action in the profiling its flags ask for.
// The profile is written when the action returns, whether it failed or
// not: a profile of a failing run is often the one wanted.
func withProfile(st *state, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		// The flags are both global and the subcommands' own; a
		// subcommand's unset flag would hide the global one from c.String.
		value := func(name string) string {
			for _, ctx := range c.Lineage() {
				if v := ctx.String(name); v != "" {
					return v
				}
			}
			return ""
		}
		stop, err := startProfile(st, value, c.Bool("verbose"))
		if err != nil {
			return err
		}
		err = action(c)
		if perr := stop(); perr != nil && err == nil {
			err = perr
		}
		return err
	}
}

// startProfile starts the one profile asked for. pkg/profile runs one
// profile per process, and that is also the honest way to profile: a
// block profile at rate 1 or a trace distorts a CPU profile taken with it.
//
// pkg/profile names its files itself inside a directory; to honour the
// exact path the user gave, it writes into a private directory next to
// that path, and the file is renamed into place on stop (same directory,
// so the rename cannot cross file systems).
func startProfile(st *state, value func(flag string) string, verbose bool) (stop func() error, err error) {
	var chosen []int
	for i, p := range profileFlags {
		if value(p.flag) != "" {
			chosen = append(chosen, i)
		}
	}
	if len(chosen) == 0 {
		return func() error { return nil }, nil
	}
	if len(chosen) > 1 {
		var names []string
		for _, i := range chosen {
			names = append(names, "--"+profileFlags[i].flag)
		}
		return nil, usageError{msg: "give one profiling flag at a time, not " + strings.Join(names, " and "),
			hints: []string{"each profile perturbs the others; run the command once per profile"}}
	}
	p := profileFlags[chosen[0]]
	target := value(p.flag)
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("--%s: %s is a directory", p.flag, target)
	}
	dir, err := os.MkdirTemp(filepath.Dir(target), ".pgpstream-profile-*")
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", p.flag, err)
	}
	opts := []func(*profile.Profile){p.mode, profile.ProfilePath(dir), profile.NoShutdownHook}
	if !verbose {
		opts = append(opts, profile.Quiet)
	}
	prof := profile.Start(opts...)
	return func() error {
		prof.Stop()
		defer os.RemoveAll(dir)
		if err := os.Rename(filepath.Join(dir, p.file), target); err != nil {
			return fmt.Errorf("--%s: %w", p.flag, err)
		}
		st.infof("wrote %s", target)
		return nil
	}, nil
}
