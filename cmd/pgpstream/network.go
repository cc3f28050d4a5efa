package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/keyserver"
	"github.com/pgpstream/pgpstream/packet"
)

// netOpts are the options of the commands that reach keyservers and Web
// Key Directories (and of -r's --auto-key-locate).
type netOpts struct {
	keyserver     string
	ksOptions     ksOpts   // --keyserver-options
	autoKeyLocate []string // --auto-key-locate, each a list, in order
}

// networkCommands run the command options of networkOptions. Keys they
// fetch are imported as --import's are: the keyring drops third-party
// signatures and writes under its lock.
var networkCommands = map[command]func(*state, *options) error{
	commandRecvKeys:           cmdRecvKeys,
	commandSearchKeys:         cmdSearchKeys,
	commandSendKeys:           cmdSendKeys,
	commandRefreshKeys:        cmdRefreshKeys,
	commandLocateKeys:         cmdLocateKeys,
	commandLocateExternalKeys: func(st *state, o *options) error { return locateKeys(st, o, true) },
}

const catNet = "Keyservers and key discovery"

// networkOptions are the option table's entries for the network.
func networkOptions() []optDef {
	return []optDef{
		{long: "recv-keys", kind: kCommand, cmd: commandRecvKeys, cat: catCommand, usage: "fetch KEYID|FPR... from the --keyserver and import them"},
		{long: "receive-keys", alias: "recv-keys", kind: kCommand, hidden: true},
		{long: "search-keys", kind: kCommand, cmd: commandSearchKeys, cat: catCommand, usage: "search the --keyserver for PATTERN; pick keys to import (with --batch: only list)"},
		{long: "send-keys", kind: kCommand, cmd: commandSendKeys, cat: catCommand, usage: "publish the public keys KEY... on the --keyserver"},
		{long: "refresh-keys", kind: kCommand, cmd: commandRefreshKeys, cat: catCommand, usage: "fetch every key of the ring (or those matching PATTERN...) again from the --keyserver"},
		{long: "locate-keys", kind: kCommand, cmd: commandLocateKeys, cat: catCommand, usage: "find the keys of EMAIL... in the ring, else by --auto-key-locate (default local,wkd), and list them"},
		{long: "locate-external-keys", kind: kCommand, cmd: commandLocateExternalKeys, cat: catCommand, usage: "--locate-keys without the ring: fetch the keys of EMAIL... by --auto-key-locate (default wkd) even when the ring has them, and list them"},
		{long: "keyserver", arg: "URL", cat: catNet, usage: "HKP keyserver: hkp://HOST[:PORT] (port 11371) or hkps://HOST[:PORT] (TLS, port 443); no default", set: setString(func(o *options) *string { return &o.net.keyserver })},
		{long: "keyserver-options", arg: "LIST", cat: catNet, usage: "timeout=SECONDS (default 30); ca-cert-file=FILE or hkp-cacert=FILE: trust only the CAs in FILE for hkps and WKD", set: setKeyserverOptions},
		{long: "auto-key-locate", arg: "LIST", cat: catNet, usage: "where -r EMAIL looks when the ring has no key: local, wkd, clear, nodefault (default: the ring only)", set: addString(func(o *options) *[]string { return &o.net.autoKeyLocate })},
		{long: "no-auto-key-locate", cat: catNet, usage: "look keys up only in the ring", set: func(o *options, _ string) error {
			o.net.autoKeyLocate = append(o.net.autoKeyLocate, "clear")
			return nil
		}},
	}
}

// netOptions is what --keyserver-options says to the keyserver client.
func netOptions(o *options) keyserver.Options {
	return keyserver.Options{Timeout: o.net.ksOptions.timeout, CACertFile: o.net.ksOptions.caCertFile}
}

func hkpClient(o *options) (*keyserver.HKP, error) {
	ks := o.net.keyserver
	if ks == "" {
		return nil, withHints(errors.New("no keyserver given"), "name one with --keyserver hkps://HOST")
	}
	return keyserver.NewHKP(ks, netOptions(o))
}

// importNetwork imports data from a network source and says what it did
// as gpg does, in one line per source. served says which of the keys
// served are imported (keyring.ImportOptions.Named or Address).
func importNetwork(st *state, ring *keyring.Ring, data []byte, what string, served keyring.ImportOptions) (keyring.ImportStats, error) {
	// What a server hands out anyone may have signed: only the key's
	// own signatures are kept, gpg's self-sigs-only for keyservers.
	served.SelfSigsOnly = true
	stats, err := ring.ImportWith(bytes.NewReader(data), served)
	if err != nil {
		return stats, fmt.Errorf("importing %s: %w", what, err)
	}
	if !st.quiet {
		st.say("%s: processed %d, imported %d, unchanged %d, new user IDs %d, new subkeys %d, new signatures %d",
			what, stats.Processed, stats.Imported, stats.Unchanged, stats.NewUserIDs, stats.NewSubkeys, stats.NewSigs)
	}
	return stats, nil
}

// recv fetches id from ks and imports only the key it names.
func recv(ctx context.Context, st *state, ring *keyring.Ring, ks *keyserver.HKP, id string) error {
	data, err := ks.Get(ctx, id)
	if err != nil {
		return err
	}
	// A server may answer with any key: only the one asked for is
	// imported.
	term, err := keyserver.KeyTerm(id)
	if err != nil {
		return err
	}
	served := keyring.ImportOptions{Named: term}
	if len(term) == 40 || len(term) == 64 {
		// gpg records a key fetched by its fingerprint as from the
		// keyserver, with its URL (g10/keyserver.c); one fetched by key
		// ID, which any key may claim, with no origin.
		served.Origin = keyring.Origin{Kind: keyring.OriginKS, URL: ks.URL()}
	}
	_, err = importNetwork(st, ring, data, "key "+strings.ToUpper(strings.TrimPrefix(id, "0x")), served)
	return err
}

func cmdRecvKeys(st *state, o *options) error {
	if len(o.args) == 0 {
		return usagef("--recv-keys needs KEYID or fingerprint arguments")
	}
	ks, err := hkpClient(o)
	if err != nil {
		return err
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	for _, id := range o.args {
		if err := recv(context.Background(), st, ring, ks, id); err != nil {
			return fmt.Errorf("keyserver receive failed: %w", err)
		}
	}
	return nil
}

func cmdSendKeys(st *state, o *options) error {
	if len(o.args) == 0 {
		return usagef("--send-keys needs KEY arguments")
	}
	ks, err := hkpClient(o)
	if err != nil {
		return err
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	for _, spec := range o.args {
		k, err := ring.Lookup(spec, false)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := ring.Export(&buf, []string{k.Fingerprint()}, false, true); err != nil {
			return err
		}
		if !st.quiet {
			st.say("sending key %s to %s", k.Fingerprint(), ks.URL())
		}
		if err := ks.Send(context.Background(), buf.Bytes()); err != nil {
			return fmt.Errorf("keyserver send failed: %w", err)
		}
	}
	return nil
}

func cmdRefreshKeys(st *state, o *options) error {
	ks, err := hkpClient(o)
	if err != nil {
		return err
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	keys, err := ring.Select(o.args, false)
	if err != nil {
		return err
	}
	if !st.quiet {
		st.say("refreshing %d keys from %s", len(keys), ks.URL())
	}
	for _, k := range keys {
		err := recv(context.Background(), st, ring, ks, k.Fingerprint())
		if errors.Is(err, keyserver.ErrNotFound) {
			// A key never published is no failure of the others.
			st.warnf("key %s not found on the keyserver", k.Fingerprint())
			continue
		}
		if err != nil {
			return fmt.Errorf("keyserver refresh failed: %w", err)
		}
	}
	return nil
}

// keyAlgoName names an OpenPGP public-key algorithm number as gpg's
// search listing does.
func keyAlgoName(a int) string {
	if n := packet.PubKeyAlgo(a).GPGName(); n != "" && a == int(uint8(a)) {
		return n
	}
	return "unknown"
}

func cmdSearchKeys(st *state, o *options) error {
	if len(o.args) == 0 {
		return usagef("--search-keys needs a PATTERN")
	}
	ks, err := hkpClient(o)
	if err != nil {
		return err
	}
	pattern := strings.Join(o.args, " ")
	res, err := ks.Search(context.Background(), pattern)
	if errors.Is(err, keyserver.ErrNotFound) || err == nil && len(res) == 0 {
		return fmt.Errorf("no key on %s matches %q", ks.URL(), pattern)
	}
	if err != nil {
		return fmt.Errorf("keyserver search failed: %w", err)
	}
	w := st.stdout
	st.say("data source: %s", ks.URL())
	for i, r := range res {
		fmt.Fprintf(w, "(%d)", i+1)
		for j, u := range r.UserIDs {
			if j > 0 {
				fmt.Fprint(w, "\n")
			}
			fmt.Fprintf(w, "\t%s", escape.Human(u))
		}
		if len(r.UserIDs) == 0 {
			fmt.Fprint(w, "\t[no user ID]")
		}
		id := r.KeyID
		if len(id) > 16 {
			id = id[len(id)-16:]
		}
		fmt.Fprintf(w, "\n\t  %d bit %s key %s", r.Bits, keyAlgoName(r.Algo), id)
		if !r.Created.IsZero() {
			fmt.Fprintf(w, ", created: %s", r.Created.Format("2006-01-02"))
		}
		if !r.Expires.IsZero() {
			fmt.Fprintf(w, ", expires: %s", r.Expires.Format("2006-01-02"))
		}
		switch {
		case r.Revoked:
			fmt.Fprint(w, " (revoked)")
		case r.Expired:
			fmt.Fprint(w, " (expired)")
		case r.Disabled:
			fmt.Fprint(w, " (disabled)")
		}
		fmt.Fprint(w, "\n")
	}
	if o.batch {
		return nil
	}
	// gpg's prompt; the answer is read from standard input.
	fmt.Fprintf(st.stderr, "Keys 1-%d of %d for %s.  Enter number(s), or Q)uit > ", len(res), len(res), escape.Quoted(pattern))
	line, _ := bufio.NewReader(st.stdin).ReadString('\n')
	var picked []string
	for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' }) {
		if f == "q" || f == "Q" {
			return nil
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > len(res) {
			return usagef("no key number %q: expected 1 to %d", f, len(res))
		}
		picked = append(picked, res[n-1].KeyID)
	}
	if len(picked) == 0 {
		return nil
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	for _, id := range picked {
		if err := recv(context.Background(), st, ring, ks, id); err != nil {
			return fmt.Errorf("keyserver receive failed: %w", err)
		}
	}
	return nil
}

// locateMechanisms reads --auto-key-locate as gpg does: the list given
// replaces def; the ring is looked at first unless the list names local
// (at its place) or nodefault; clear forgets what came before it.
func locateMechanisms(o *options, def []string) ([]string, error) {
	v := strings.Join(o.net.autoKeyLocate, ",")
	if v == "" {
		return def, nil
	}
	var mech []string
	nodefault := false
	for _, m := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch m {
		case "clear":
			mech, nodefault = nil, false
		case "nodefault":
			nodefault = true
		case "local", "wkd":
			mech = append(mech, m)
		default:
			return nil, usagef("--auto-key-locate %s: pgpstream knows local and wkd (and clear, nodefault)", m)
		}
	}
	if !nodefault && !slices.Contains(mech, "local") {
		mech = append([]string{"local"}, mech...)
	}
	return mech, nil
}

// fetchWKD looks email up in its Web Key Directory and imports what is
// found.
func fetchWKD(o *options, st *state, ring *keyring.Ring, email string) error {
	w, err := keyserver.NewWKD(netOptions(o))
	if err != nil {
		return err
	}
	data, url, err := w.Lookup(context.Background(), email)
	if err != nil {
		return err
	}
	// A directory may serve anything: only keys with a user ID for
	// email are imported, with only those user IDs.
	addr, err := keyserver.AddressTerm(email)
	if err != nil {
		return err
	}
	_, err = importNetwork(st, ring, data, "WKD key for "+email, keyring.ImportOptions{Address: addr, Origin: keyring.Origin{Kind: keyring.OriginWKD, URL: url}})
	return err
}

// addrSpec is the ring pattern for exactly the address email.
func addrSpec(email string) string {
	return "<" + strings.TrimSuffix(strings.TrimPrefix(email, "<"), ">") + ">"
}

// isAddress reports whether spec names a mail address (addr@domain or
// <addr@domain>), the only recipients a directory can be asked about.
func isAddress(spec string) bool {
	s := strings.TrimSuffix(strings.TrimPrefix(spec, "<"), ">")
	at := strings.IndexByte(s, '@')
	return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " =")
}

func cmdLocateKeys(st *state, o *options) error { return locateKeys(st, o, false) }

// locateKeys is --locate-keys, and with external --locate-external-keys
// (gpg 2.2.17's: the same mechanisms with "local" taken out, so a key is
// fetched again although the ring has one).
func locateKeys(st *state, o *options, external bool) error {
	name := "--locate-keys"
	if external {
		name = "--locate-external-keys"
	}
	if len(o.args) == 0 {
		return usagef("%s needs EMAIL arguments", name)
	}
	// gpg 2.2's default for --locate-keys: the ring, then the directory.
	mech, err := locateMechanisms(o, []string{"local", "wkd"})
	if err != nil {
		return err
	}
	if external {
		var ext []string
		for _, m := range mech {
			if m != "local" {
				ext = append(ext, m)
			}
		}
		if len(ext) == 0 {
			return usagef("%s: --auto-key-locate names no mechanism but local", name)
		}
		mech = ext
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	var specs []string
	for _, email := range o.args {
		if !isAddress(email) {
			return usagef("%s %q: expected an email address", name, email)
		}
		spec := addrSpec(email)
		if err := locate(o, st, ring, mech, spec); err != nil {
			return err
		}
		// Several keys with the address: gpg lists the one it would
		// take (keyring.BestForAddress).
		keys, err := ring.Select([]string{spec}, false)
		if err != nil {
			return err
		}
		if best := ring.BestForAddress(keys, email, o.trustModelName(), clock.Now()); best != nil {
			spec = best.Fingerprint()
		}
		specs = append(specs, spec)
	}
	return ring.ListKeys(st.stdout, specs, false, o.withColons)
}

// locate tries mech in order until the ring holds a key for spec.
func locate(o *options, st *state, ring *keyring.Ring, mech []string, spec string) error {
	var errs []error
	for _, m := range mech {
		switch m {
		case "local":
			if _, err := ring.Select([]string{spec}, false); err == nil {
				return nil
			}
		case "wkd":
			err := fetchWKD(o, st, ring, strings.Trim(spec, "<>"))
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("no key for %s: %w", spec, errors.Join(errs...))
	}
	return fmt.Errorf("no key for %s (looked in: %s)", spec, strings.Join(mech, ", "))
}

// autoLocate is -r's fallback when the ring has no key for spec: with
// --auto-key-locate naming wkd and spec an address, it fetches the key
// from the address's directory and reports whether it did. The default
// is the ring alone, so that encrypting never tells a network who the
// recipients are unless the user asked for it.
func autoLocate(o *options, st *state, ring *keyring.Ring, spec string) (bool, error) {
	mech, err := locateMechanisms(o, []string{"local"})
	if err != nil || !isAddress(spec) {
		return false, err
	}
	for _, m := range mech {
		if m == "wkd" {
			if err := fetchWKD(o, st, ring, strings.Trim(spec, "<>")); err != nil {
				return false, err
			}
			return true, nil
		}
	}
	return false, nil
}
