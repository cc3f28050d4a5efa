package main

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/bench"
)

func benchCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "measure ns/byte, MiB/s and cycles/byte of each cipher mode, hash and message format",
		ArgsUsage: "[cipher|aead|hash|message] [ALGO|MODE...]",
		Description: `Each figure is the slope of time over buffer sizes (1 to 16 KiB for the
primitives, 64 KiB to 512 KiB for whole messages), the median of several
runs: what one more byte costs, with per-call overhead left out, as
libgcrypt's bench-slope reports it. ALGO: aes128, aes192, aes256, sha1,
sha256, sha512, ripemd160, seipdv1, ...; MODE: cfb, ocb, gcm, eax, enc, dec,
auth, encrypt, decrypt.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "cpu-mhz", Usage: "the CPU clock in MHz for cycles/byte, or auto to estimate it"},
			&cli.BoolFlag{Name: "csv", Usage: "print comma-separated values"},
			&cli.StringSliceFlag{Name: "disable-hwf", Usage: "switch off a CPU feature: " + strings.Join(hwfNames(), ", ")},
		}, profilingFlags("")...),
		Before: hwfBefore(st),
		Action: withProfile(st, func(c *cli.Context) error { return cmdBench(st, c) }),
	}
}

func cmdBench(st *state, c *cli.Context) error {
	args := c.Args().Slice()
	var groups []bench.Group
	for len(args) > 0 {
		g, ok := bench.ParseGroup(args[0])
		if !ok {
			break
		}
		groups = append(groups, g)
		args = args[1:]
	}
	cases, err := bench.Select(groups, args)
	if err != nil {
		return usageError{msg: err.Error(), hints: []string{"see pgpstream bench --help"}}
	}
	mhz, auto := 0.0, false
	switch v := c.String("cpu-mhz"); v {
	case "":
	case "auto":
		auto = true
		mhz = bench.EstimateMHz()
	default:
		if mhz, err = strconv.ParseFloat(v, 64); err != nil || mhz <= 0 {
			return usagef("--cpu-mhz: want a clock in MHz or auto, not %q", v)
		}
	}

	var cw *csv.Writer
	if c.Bool("csv") {
		cw = csv.NewWriter(st.stdout)
		cw.Write([]string{"group", "algorithm", "mode", "ns_per_byte", "mib_per_s", "cycles_per_byte", "mhz", "implementation"})
	} else if auto {
		fmt.Fprintf(st.stdout, "CPU clock (auto): %.0f MHz\n", mhz)
	}
	lastHead := ""
	for _, cs := range cases {
		r, err := bench.Measure(cs, bench.DefaultOptions)
		if bench.IsSkip(err) {
			st.infof("skipping %s %s: %v", cs.Algo, cs.Mode, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("bench %s %s: %w", cs.Algo, cs.Mode, err)
		}
		if !(r.NsPerByte > 0) {
			// Noise swamped the slope (a loaded machine, a GC in the
			// middle): say so rather than print a negative cost.
			st.warnf("%s %s: the measurement was unstable (slope %.3f ns/B); run it again on an idle machine", r.Algo, r.Mode, r.NsPerByte)
			continue
		}
		cpb := "-"
		if mhz > 0 {
			cpb = fmt.Sprintf("%.2f", bench.CyclesPerByte(r.NsPerByte, mhz))
		}
		if cw != nil {
			m := ""
			if mhz > 0 {
				m = fmt.Sprintf("%.0f", mhz)
			}
			cw.Write([]string{string(tableOf(cs)), r.Algo, r.Mode, fmt.Sprintf("%.4f", r.NsPerByte),
				fmt.Sprintf("%.1f", bench.MiBPerSecond(r.NsPerByte)), strings.TrimPrefix(cpb, "-"), m, r.Impl})
			cw.Flush()
			continue
		}
		head := strings.ToUpper(string(tableOf(cs)[:1])) + string(tableOf(cs)[1:]) + " " + r.Algo
		if head != lastHead {
			fmt.Fprintf(st.stdout, "%-28s|  %12s  %14s  %11s  %s\n", head, "nanosecs/byte", "mebibytes/sec", "cycles/byte", "implementation")
			lastHead = head
		}
		mode := r.Mode
		if mode == "" {
			mode = "hash"
		}
		fmt.Fprintf(st.stdout, "%27s |  %8.3f ns/B  %8.1f MiB/s  %7s c/B  %s\n",
			mode, r.NsPerByte, bench.MiBPerSecond(r.NsPerByte), cpb, r.Impl)
	}
	if cw != nil {
		cw.Flush()
		return cw.Error()
	}
	return nil
}

// tableOf is the table a row prints in: the AEAD rows belong to cipher.
func tableOf(c bench.Case) bench.Group {
	if c.Group == bench.AEAD {
		return bench.Cipher
	}
	return c.Group
}

func versionCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:   "version",
		Usage:  "print the version, the CPU features found and the engine each mode uses",
		Flags:  append([]cli.Flag{&cli.StringSliceFlag{Name: "disable-hwf", Usage: "switch off a CPU feature"}}, profilingFlags("")...),
		Before: hwfBefore(st),
		Action: withProfile(st, func(c *cli.Context) error { return printVersion(st) }),
	}
}
