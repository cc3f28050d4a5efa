// Command benchtab turns the per-round hyperfine JSON files that bench.sh
// writes into one Markdown table: the median wall time of each command
// over all rounds, its throughput, and its ratio to the case's first
// command.
//
// With -sha1 FILE it is instead one of the physical limits the bench
// measures: one core's SHA-1 (the standard library's, SHA-NI where the
// CPU has it, as pgpstream's MDC uses) over FILE, read in 256 KiB blocks.
package main

import (
	"crypto/sha1"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type result struct {
	Command string    `json:"command"`
	Times   []float64 `json:"times"`
	User    float64   `json:"user"`   // mean over the runs (bench.sh makes one per file)
	System  float64   `json:"system"` // the same
}

func main() {
	bytes := flag.Float64("bytes", 1<<30, "bytes each command moves")
	sha := flag.String("sha1", "", "hash this file with SHA-1 on one core and exit")
	flag.Parse()
	if *sha != "" {
		f, err := os.Open(*sha)
		if err != nil {
			fatal(err)
		}
		h := sha1.New()
		if _, err := io.CopyBuffer(h, f, make([]byte, 256<<10)); err != nil {
			fatal(err)
		}
		fmt.Printf("%x\n", h.Sum(nil))
		return
	}
	// Each argument: NAME=GLOB, the JSON files of one case; every command
	// named in them gets a row, in the order of the first file (round 0,
	// not rotated). The first command is the reference for the ratio.
	fmt.Println("| case | command | median s | MB/s | time / first's | CPU s | CPU / first's | runs |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	for _, arg := range flag.Args() {
		name, glob, _ := strings.Cut(arg, "=")
		files, _ := filepath.Glob(glob)
		times := map[string][]float64{}
		cpus := map[string][]float64{}
		var order []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				fatal(err)
			}
			var doc struct{ Results []result }
			if err := json.Unmarshal(b, &doc); err != nil {
				fatal(fmt.Errorf("%s: %v", f, err))
			}
			for _, r := range doc.Results {
				if _, ok := times[r.Command]; !ok {
					order = append(order, r.Command)
				}
				times[r.Command] = append(times[r.Command], r.Times...)
				cpus[r.Command] = append(cpus[r.Command], r.User+r.System)
			}
		}
		var ref, cref float64
		for i, cmd := range order {
			m, c := median(times[cmd]), median(cpus[cmd])
			if i == 0 {
				ref, cref = m, c
			}
			fmt.Printf("| %s | `%s` | %.3f | %.0f | %.2f× | %.3f | %.2f× | %d |\n", name, shorten(cmd), m, *bytes/m/1e6, m/ref, c, c/cref, len(times[cmd]))
		}
	}
}

func shorten(cmd string) string { return strings.ReplaceAll(cmd, "|", "\\|") }

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchtab:", err)
	os.Exit(1)
}
