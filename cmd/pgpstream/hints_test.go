package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/filter"
)

// TestLockedKeyHint checks that the hint for a message no key opened is
// chosen from the error's type: filter.ErrNoSecretKey joined with a
// *filter.KeyError per key tried, a locked one wrapping filter.ErrKeyLocked
// (the shape filter.Decrypt returns), whatever the text says.
func TestLockedKeyHint(t *testing.T) {
	locked := &filter.KeyError{KeyID: 0x1234, Err: fmt.Errorf("secret key 1234 is %w", filter.ErrKeyLocked)}
	other := &filter.KeyError{KeyID: 0x5678, Err: errors.New("decryption failed")}
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: %w", filter.ErrNoSecretKey, errors.Join(other, locked)), "passphrase"},
		{fmt.Errorf("%w: %w", filter.ErrNoSecretKey, errors.Join(other)), "import"},
		// The text alone decides nothing.
		{fmt.Errorf("%w: protected by a passphrase and none was given", filter.ErrNoSecretKey), "import"},
	} {
		h := hintsFor(c.err)
		if len(h) != 1 || !strings.Contains(h[0], c.want) {
			t.Errorf("%v: hints %q, want one about %s", c.err, h, c.want)
		}
	}
}
