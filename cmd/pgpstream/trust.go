package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pgpstream/pgpstream/keyring"
)

// trustModelName is the trust model in use: gpg's names, with pgp for
// classic, auto and the tofu models, which pgpstream does not keep.
func (o *options) trustModelName() string {
	switch o.trustModel {
	case "direct":
		return keyring.ModelDirect
	case "always":
		return keyring.ModelAlways
	}
	return keyring.ModelPGP
}

// trustLine writes what gpg writes after a good signature: the signer's
// validity as a TRUST_ status line and after the user ID on standard error.
// Under --trust-model always gpg says neither, and neither does pgpstream.
func (s *sigReporter) trust(k *keyring.Key) (word string) {
	if s.trustModel == keyring.ModelAlways || k == nil || s.signers == nil {
		return ""
	}
	v := s.signers.ring.Validity(k.Fingerprint(), s.trustModel)
	s.status.line(v.Status(), 0, s.trustModel)
	return " [" + v.Word() + "]"
}

func cmdImportOwnerTrust(st *state, o *options) error {
	inputs := o.args
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	set := map[string]keyring.OwnerTrust{}
	for _, name := range inputs {
		var data []byte
		var err error
		if name == "-" {
			data, err = io.ReadAll(st.stdin)
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return fmt.Errorf("--import-ownertrust: %w", err)
		}
		m, err := keyring.ParseOwnerTrust(data)
		if err != nil {
			return fmt.Errorf("--import-ownertrust %s: %w", name, err)
		}
		for fpr, t := range m {
			set[fpr] = t
			st.infof("inserting ownertrust of %d for %s", t, fpr)
		}
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	return ring.SetOwnerTrust(set)
}

func cmdExportOwnerTrust(st *state, o *options) error {
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	_, err = st.stdout.Write(ring.ExportOwnerTrust())
	return err
}

// ownerTrustWords are --quick-set-ownertrust's values (gpg 2.4's names).
var ownerTrustWords = map[string]keyring.OwnerTrust{
	"unknown": keyring.TrustUnknown, "undefined": keyring.TrustUndefined, "never": keyring.TrustNever,
	"marginal": keyring.TrustMarginal, "full": keyring.TrustFully, "ultimate": keyring.TrustUltimate,
}

func cmdQuickSetOwnerTrust(st *state, o *options) error {
	if len(o.args) != 2 {
		return usagef("--quick-set-ownertrust takes a key and a trust level (unknown, undefined, never, marginal, full, ultimate)")
	}
	t, ok := ownerTrustWords[strings.ToLower(o.args[1])]
	if !ok {
		return usagef("--quick-set-ownertrust: unknown trust level %q (want unknown, undefined, never, marginal, full or ultimate)", o.args[1])
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	k, err := ring.Lookup(o.args[0], false)
	if err != nil {
		return err
	}
	return ring.SetOwnerTrust(map[string]keyring.OwnerTrust{k.Fingerprint(): t})
}
