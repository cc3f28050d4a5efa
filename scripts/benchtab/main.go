// Command benchtab turns the per-round hyperfine JSON files that bench.sh
// writes into one Markdown table: the median wall time of each command
// over all rounds, its throughput, and its ratio to a reference command.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type result struct {
	Command string    `json:"command"`
	Times   []float64 `json:"times"`
}

func main() {
	bytes := flag.Float64("bytes", 1<<30, "bytes each command moves")
	flag.Parse()
	// Each argument: a glob of JSON files for one case; every command
	// named in them gets a row. The first command of a case is the
	// reference for the ratio column.
	fmt.Println("| case | command | median s | MB/s | vs first | runs |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	for _, arg := range flag.Args() {
		name, glob, _ := strings.Cut(arg, "=")
		files, _ := filepath.Glob(glob)
		times := map[string][]float64{}
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
			}
		}
		sort.SliceStable(order, func(i, j int) bool { return rank(order[i]) < rank(order[j]) })
		var ref float64
		for i, cmd := range order {
			m := median(times[cmd])
			if i == 0 {
				ref = m
			}
			fmt.Printf("| %s | `%s` | %.3f | %.0f | %.2f× | %d |\n", name, shorten(cmd), m, *bytes/m/1e6, ref/m, len(times[cmd]))
		}
	}
}

// rank puts pgpstream first, then gpg, rnp, and anything else.
func rank(cmd string) int {
	for i, p := range []string{"pgpstream", "gpg", "rnp"} {
		if strings.Contains(cmd, p) {
			return i
		}
	}
	return 9
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
