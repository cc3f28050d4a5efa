package bench

import (
	"math"
	"testing"
)

func TestRegression(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	y := []float64{105, 107, 109, 111} // 2 per unit plus a fixed 103
	if got := regression(x, y); math.Abs(got-2) > 1e-9 {
		t.Fatalf("slope %v, want 2", got)
	}
}

func TestSelect(t *testing.T) {
	cs, err := Select([]Group{Cipher}, []string{"aes128"})
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]bool{}
	for _, c := range cs {
		if c.Algo != "AES-128" {
			t.Errorf("aes128 picked %s", c.Algo)
		}
		modes[c.Mode] = true
	}
	for _, m := range []string{"CFB enc", "CFB dec", "OCB enc", "OCB dec", "OCB auth", "GCM enc", "GCM dec", "GCM auth", "EAX enc", "EAX dec"} {
		if !modes[m] {
			t.Errorf("missing %s", m)
		}
	}
	cs, err = Select([]Group{AEAD}, []string{"ocb", "aes256"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Errorf("aead ocb aes256: %d rows, want 3", len(cs))
	}
	if _, err := Select(nil, []string{"rot13"}); err == nil {
		t.Error("an unknown name was accepted")
	}
}

// Every case sets up and runs at a small size: the table cannot panic.
func TestCasesRun(t *testing.T) {
	for _, c := range Cases() {
		sz := c.Sizes
		if sz.Count == 0 {
			sz = DefaultSizes
		}
		op, err := c.Setup(sz.Step * 2)
		if IsSkip(err) {
			t.Logf("%s %s: skipped: %v", c.Algo, c.Mode, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v", c.Algo, c.Mode, err)
		}
		op(sz.Step)
		op(2 * sz.Step)
	}
}

func TestEstimateMHz(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	mhz := EstimateMHz()
	if mhz < 200 || mhz > 10000 {
		t.Errorf("estimated %.0f MHz", mhz)
	}
	t.Logf("%.0f MHz", mhz)
}

// BenchmarkCases runs the bench table under go test -bench, with
// b.SetBytes so go test reports MB/s for the largest size.
func BenchmarkCases(b *testing.B) {
	for _, c := range Cases() {
		sz := c.Sizes
		if sz.Count == 0 {
			sz = DefaultSizes
		}
		n := sz.Step * sz.Count
		b.Run(c.Algo+"/"+c.Mode, func(b *testing.B) {
			op, err := c.Setup(n)
			if IsSkip(err) {
				b.Skip(err)
			}
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				op(n)
			}
		})
	}
}
