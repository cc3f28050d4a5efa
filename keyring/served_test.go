package keyring

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// readWKD reads one of the Web Key Directory test keys (Joe's and Carol's).
func readWKD(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/keys/wkd-" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A server answering for one key with others: only the key asked for
// (by its fingerprint, its key ID or a subkey's) is imported.
func TestImportNamed(t *testing.T) {
	const joeFpr = "916721A6C099E6BA852FAF80E94E607346A681E2"
	joe, carol := readWKD(t, "joe.asc"), readWKD(t, "carol.asc")
	both := append(append([]byte{}, joe...), carol...)
	for _, id := range []string{joeFpr, joeFpr[24:], "70B161250E9BE6F3"} { // the last: Joe's subkey
		r, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		st, err := r.ImportWith(bytes.NewReader(both), ImportOptions{SelfSigsOnly: true, Named: id})
		if err != nil {
			t.Fatalf("import named %s: %v", id, err)
		}
		if st.Processed != 1 || st.Imported != 1 {
			t.Errorf("named %s: processed %d, imported %d; want Joe's key alone", id, st.Processed, st.Imported)
		}
		if k, err := r.Lookup(joeFpr, false); err != nil || len(k.UserIDs()) != 2 {
			t.Errorf("named %s: Joe's key not imported whole: %v", id, err)
		}
	}
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ImportWith(bytes.NewReader(carol), ImportOptions{Named: joeFpr}); !errors.Is(err, ErrNotServed) {
		t.Errorf("another key served: %v", err)
	}
	if _, err := r.Lookup(joeFpr, false); err == nil {
		t.Error("Joe's key is in the ring after a failed import")
	}
}

// A directory's answer: only the keys with a user ID for the address
// looked up, with only those user IDs, armored or binary.
func TestImportAddress(t *testing.T) {
	joe, carol := readWKD(t, "joe.asc"), readWKD(t, "carol.asc")
	both := append(append([]byte{}, carol...), joe...)
	for addr, want := range map[string]string{
		"joe.doe@example.org": "Joe Doe <Joe.Doe@example.org>",
		"joe@elsewhere.test":  "Joe Elsewhere <joe@elsewhere.test>",
	} {
		r, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		st, err := r.ImportWith(bytes.NewReader(both), ImportOptions{SelfSigsOnly: true, Address: addr})
		if err != nil {
			t.Fatalf("import for %s: %v", addr, err)
		}
		if st.Imported != 1 {
			t.Errorf("%s: imported %d keys, want Joe's alone", addr, st.Imported)
		}
		k, err := r.Lookup("916721A6C099E6BA852FAF80E94E607346A681E2", false)
		if err != nil {
			t.Fatalf("%s: Joe's key not imported: %v", addr, err)
		}
		if got := k.UserIDs(); len(got) != 1 || got[0] != want {
			t.Errorf("%s: user IDs %q, want only %q", addr, got, want)
		}
	}
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ImportWith(bytes.NewReader(carol), ImportOptions{Address: "joe.doe@example.org"})
	if !errors.Is(err, ErrNotServed) || !strings.Contains(err.Error(), "no user ID with that address") {
		t.Errorf("a key without the address: %v", err)
	}
}
