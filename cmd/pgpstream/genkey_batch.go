package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keyring"
)

// keyParams is one key of a --gen-key parameter file, GnuPG's "Unattended
// key generation" format (doc/DETAILS): "Name: value" lines, % control
// lines, a key per Key-Type, made at %commit or at the end of the file.
type keyParams struct {
	line                 int // where its Key-Type is, for messages
	keyType, keyCurve    string
	keyLength            int
	keyUsage             string
	subType, subCurve    string
	subLength            int
	subUsage             string
	nameReal, nameEmail  string
	nameComment          string
	expire               time.Time // zero: never
	passphrase           []byte
	hasPassphrase        bool
	noProtection, dryRun bool
	handle               string
	seen                 map[string]bool
}

// userID is "Name-Real (Name-Comment) <Name-Email>", the parts given.
func (p *keyParams) userID() string {
	var parts []string
	if p.nameReal != "" {
		parts = append(parts, p.nameReal)
	}
	if p.nameComment != "" {
		parts = append(parts, "("+p.nameComment+")")
	}
	if p.nameEmail != "" {
		parts = append(parts, "<"+p.nameEmail+">")
	}
	return strings.Join(parts, " ")
}

// parseKeyParams reads a parameter file and returns the keys to make, in
// order; echo receives each %echo line.
func parseKeyParams(name string, data []byte, echo func(string)) ([]*keyParams, error) {
	var keys []*keyParams
	var cur *keyParams
	dryRun, noProtection := false, false
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
	}
	commit := func() {
		if cur != nil {
			cur.dryRun = dryRun
			keys = append(keys, cur)
			cur = nil
		}
	}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if ctl, ok := strings.CutPrefix(line, "%"); ok {
			word, arg, _ := strings.Cut(ctl, " ")
			switch strings.ToLower(word) {
			case "echo":
				echo(strings.TrimSpace(arg))
			case "commit":
				commit()
			case "dry-run":
				dryRun = true
			case "no-protection":
				if cur == nil {
					// Before any Key-Type it is for every key, as in gpg.
					noProtection = true
					continue
				}
				cur.noProtection = true
			case "ask-passphrase", "no-ask-passphrase", "transient-key":
				// The first two are obsolete in gpg 2.1 too; a transient
				// key is only made faster, and pgpstream's keys are not
				// slow to make.
			case "pubring", "secring":
				return nil, errf("%%%s is not supported: keys go to the home's ring", word)
			default:
				return nil, errf("unknown control statement %%%s", word)
			}
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, errf("want Name: value")
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if key == "key-type" {
			commit()
			cur = &keyParams{line: n, keyType: val, seen: map[string]bool{}, noProtection: noProtection}
			continue
		}
		if cur == nil {
			return nil, errf("%s before Key-Type", key)
		}
		if cur.seen[key] {
			return nil, errf("%s given twice", key)
		}
		cur.seen[key] = true
		var err error
		switch key {
		case "key-length":
			cur.keyLength, err = strconv.Atoi(val)
		case "key-curve":
			cur.keyCurve = val
		case "key-usage":
			cur.keyUsage = val
		case "subkey-type":
			cur.subType = val
		case "subkey-length":
			cur.subLength, err = strconv.Atoi(val)
		case "subkey-curve":
			cur.subCurve = val
		case "subkey-usage":
			cur.subUsage = val
		case "name-real":
			cur.nameReal = val
		case "name-email":
			cur.nameEmail = val
		case "name-comment":
			cur.nameComment = val
		case "expire-date", "subkey-expire-date":
			cur.expire, err = parseExpireDate(val, clock.Now())
		case "passphrase":
			cur.passphrase, cur.hasPassphrase = []byte(val), true
		case "handle":
			cur.handle = val
		case "creation-date", "preferences", "revoker", "keyserver", "keygrip", "subkey-grip":
			return nil, errf("%s is not supported", key)
		default:
			return nil, errf("unknown parameter %s", key)
		}
		if err != nil {
			return nil, errf("%s: %v", key, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	commit()
	return keys, nil
}

// parseExpireDate reads Expire-Date: 0 or "never" (none), an ISO date
// (YYYY-MM-DD or YYYYMMDDThhmmss), "seconds=N", or N with an optional d,
// w, m or y (days by default).
func parseExpireDate(v string, now time.Time) (time.Time, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" || v == "0" || v == "never" || v == "none" || v == "-" {
		return time.Time{}, nil
	}
	if s, ok := strings.CutPrefix(v, "seconds="); ok {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return time.Time{}, fmt.Errorf("bad seconds %q", s)
		}
		return now.Add(time.Duration(n) * time.Second), nil
	}
	for _, layout := range []string{"2006-01-02", "20060102t150405"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	unit := byte('d')
	if c := v[len(v)-1]; c == 'd' || c == 'w' || c == 'm' || c == 'y' {
		unit, v = c, v[:len(v)-1]
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return time.Time{}, fmt.Errorf("want 0, a date, or a count with d, w, m or y, not %q", v)
	}
	switch unit {
	case 'w':
		n *= 7
	case 'm':
		n *= 30
	case 'y':
		n *= 365
	}
	return now.AddDate(0, 0, n), nil
}

// algo maps the key and subkey types to what keyring.GenOptions makes
// (Algo and Subkey), or says which parameter it cannot honour. The pairs
// pgpstream makes by default (ed25519, ed448 and nistp256 with their own
// encryption subkeys, RSA 3072 or 4096 with RSA of the same size) are
// the usual ones; gpg 2.2's others are made too: RSA of 1024 to 4096
// bits, DSA of 1024, 2048 or 3072 bits, an Elgamal or RSA subkey of any
// size gpg makes, and a primary key alone.
func (p *keyParams) algo() (string, string, error) {
	norm := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	kt, st := norm(p.keyType), norm(p.subType)
	curve, subCurve := norm(p.keyCurve), norm(p.subCurve)
	var algo string
	switch kt {
	case "default":
		algo = "default"
	case "eddsa", "22":
		switch curve {
		case "ed25519", "":
			algo = "ed25519"
		case "ed448":
			algo = "ed448"
		default:
			return "", "", fmt.Errorf("Key-Curve %s is not supported with EdDSA (ed25519, ed448)", p.keyCurve)
		}
	case "ecdsa", "19":
		if curve != "nistp256" && curve != "nist p-256" {
			return "", "", fmt.Errorf("Key-Curve %s is not supported with ECDSA (nistp256)", p.keyCurve)
		}
		algo = "nistp256"
	case "rsa", "1":
		switch n := p.keyLength; {
		case n == 0:
			algo = "rsa3072"
		case n >= 1024 && n <= 4096:
			algo = fmt.Sprintf("rsa%d", roundUp(n, 32))
		default:
			return "", "", fmt.Errorf("Key-Length %d is not supported for RSA (1024 to 4096)", p.keyLength)
		}
	case "dsa", "17":
		switch n := p.keyLength; n {
		case 0, 2048:
			algo = "dsa2048"
		case 1024, 3072:
			algo = fmt.Sprintf("dsa%d", n)
		default:
			return "", "", fmt.Errorf("Key-Length %d is not supported for DSA (1024, 2048, 3072)", p.keyLength)
		}
	default:
		return "", "", fmt.Errorf("Key-Type %s is not supported (RSA, DSA, EDDSA, ECDSA, default)", p.keyType)
	}
	usages := []string{"sign", "cert", "auth"}
	if st == "" && strings.HasPrefix(algo, "rsa") {
		usages = append(usages, "encrypt", "encr") // an RSA key alone may encrypt too
	}
	if err := checkUsage("Key-Usage", p.keyUsage, usages...); err != nil {
		return "", "", err
	}
	if st == "" {
		// A primary key alone, as gpg makes it.
		return algo, "none", nil
	}
	if err := checkUsage("Subkey-Usage", p.subUsage, "encrypt"); err != nil {
		return "", "", err
	}
	subBits := func(def int) (int, error) {
		switch n := p.subLength; {
		case n == 0:
			return def, nil
		case n >= 1024 && n <= 4096:
			return roundUp(n, 32), nil
		}
		return 0, fmt.Errorf("Subkey-Length %d is not supported (1024 to 4096)", p.subLength)
	}
	switch st {
	case "elg-e", "elg", "16":
		n, err := subBits(3072) // gpg's default for Elgamal
		if err != nil {
			return "", "", err
		}
		return algo, fmt.Sprintf("elg%d", n), nil
	case "rsa", "1":
		def := 3072
		if strings.HasPrefix(algo, "rsa") {
			def, _ = strconv.Atoi(algo[3:])
		}
		n, err := subBits(def)
		if err != nil {
			return "", "", err
		}
		if algo == fmt.Sprintf("rsa%d", n) && (n == 3072 || n == 4096) {
			return algo, "", nil // the usual pair
		}
		return algo, fmt.Sprintf("rsa%d", n), nil
	}
	// The ECC primary keys are made with their own kind of encryption
	// subkey; a parameter file must ask for that one.
	want := map[string][]string{
		"default": {"default", "ecdh", "18"}, "ed25519": {"ecdh", "18", "default"},
		"ed448": {"ecdh", "18", "default"}, "nistp256": {"ecdh", "18", "default"},
	}[algo]
	okType := false
	for _, w := range want {
		okType = okType || st == w
	}
	if !okType {
		return "", "", fmt.Errorf("Subkey-Type %s is not supported with Key-Type %s (RSA and Elgamal subkeys go with RSA and DSA keys, ECDH with ECC ones)", p.subType, p.keyType)
	}
	wantCurve := map[string]string{"ed25519": "cv25519", "ed448": "cv448", "nistp256": "nistp256"}[algo]
	if subCurve != "" && subCurve != wantCurve && !(wantCurve == "cv448" && subCurve == "x448") && !(wantCurve == "cv25519" && subCurve == "x25519") {
		return "", "", fmt.Errorf("Subkey-Curve %s is not supported with Key-Curve %s (want %s)", p.subCurve, p.keyCurve, wantCurve)
	}
	return algo, "", nil
}

// roundUp is n rounded up to a multiple of m, as gpg rounds key sizes.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// checkUsage accepts a usage list (comma or space separated) made of the
// allowed words; the keys pgpstream makes sign and certify with the
// primary key and encrypt with the subkey.
func checkUsage(name, v string, allowed ...string) error {
	for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == ',' || r == ' ' }) {
		ok := false
		for _, a := range allowed {
			ok = ok || w == a
		}
		if !ok {
			return fmt.Errorf("%s %s is not supported (want %s)", name, w, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// cmdGenKeyBatch is --gen-key (--generate-key) with a parameter file, or
// standard input, as python-gnupg and GPGME drive it. Without --batch gpg
// asks its questions; pgpstream has no dialog and says so.
func cmdGenKeyBatch(st *state, o *options) error {
	if !o.batch {
		return usageError{msg: "--gen-key asks nothing without --batch: give a parameter file with --batch", hints: []string{`pgpstream --batch --gen-key PARAMFILE, or pgpstream --quick-gen-key "Name <mail@example.org>"`}}
	}
	if len(o.args) > 1 {
		return usagef("--gen-key takes at most one parameter file")
	}
	name, r := "[stdin]", io.Reader(st.stdin)
	if len(o.args) == 1 && o.args[0] != "-" {
		f, _, done, err := openArg(st, o, o.args[0])
		if err != nil {
			return err
		}
		defer done()
		name, r = o.args[0], f
	}
	data, err := bounded.ReadAll(r, name, bounded.Params)
	if err != nil {
		return err
	}
	keys, err := parseKeyParams(name, data, func(s string) { st.say("%s", s) })
	if err != nil {
		return err
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	for _, p := range keys {
		p.dryRun = p.dryRun || o.dryRun
		if err := genOneKey(st, o, sw, p); err != nil {
			sw.Write(status.KeyNotCreated{Handle: p.handle})
			return fmt.Errorf("%s:%d: %w", name, p.line, err)
		}
	}
	return nil
}

func genOneKey(st *state, o *options, sw *statusWriter, p *keyParams) error {
	algo, sub, err := p.algo()
	if err != nil {
		return err
	}
	uid := p.userID()
	if uid == "" {
		return fmt.Errorf("no user ID: give Name-Real or Name-Email")
	}
	opt := keyring.GenOptions{UserID: uid, Algo: algo, Subkey: sub, V6: o.keyVersion == 6}
	if sub == "none" {
		// A primary key alone does what Key-Usage says, or, as in gpg,
		// all its algorithm can: an RSA key signs, encrypts and
		// authenticates, the others sign and authenticate.
		opt.Usage = p.keyUsage
		if strings.TrimSpace(opt.Usage) == "" {
			opt.Usage = "sign,auth"
			if strings.HasPrefix(algo, "rsa") {
				opt.Usage = "sign,encrypt,auth"
			}
		}
	}
	if err := setGenExpiry(&opt, p.expire); err != nil {
		return err
	}
	switch {
	case p.noProtection:
	case p.hasPassphrase:
		opt.Passphrase = p.passphrase
	default:
		// gpg asks, through its pinentry; pgpstream through the same
		// path as every other passphrase, asking twice on a terminal.
		pass, err := newPassphrases(st, o).GetFor(fmt.Sprintf("Enter a passphrase to protect the new key %q.", uid), true)
		if err != nil {
			return withHints(fmt.Errorf("the key needs a passphrase: %w", err), "add Passphrase: or %no-protection to the parameter file")
		}
		opt.Passphrase = pass
	}
	if p.dryRun {
		st.infof("dry-run mode - key generation skipped")
		return nil
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	k, err := ring.Generate(opt)
	if err != nil {
		return err
	}
	fpr := k.Fingerprint()
	if !p.expire.IsZero() {
		// Expire-Date is the subkey's expiry too, as in gpg.
		pass := func() ([]byte, error) { return opt.Passphrase, nil }
		if err := ring.SetExpire(fpr, p.expire, nil, true, pass); err != nil {
			return err
		}
	}
	sw.Write(status.KeyConsidered{Fpr: fpr, Flags: 0})
	if !st.quiet {
		st.say("key %016X marked as ultimately trusted", k.KeyID())
	}
	// B: a primary key and a subkey were made; P: a primary key alone.
	kind := "B"
	if sub == "none" {
		kind = "P"
	}
	if p.handle != "" {
		sw.Write(status.KeyCreated{Kind: kind, Fpr: fpr, Handle: p.handle})
	} else {
		sw.Write(status.KeyCreated{Kind: kind, Fpr: fpr})
	}
	return nil
}

// setGenExpiry sets when a generated key expires (zero: never).
func setGenExpiry(opt *keyring.GenOptions, t time.Time) error {
	opt.Expires = t
	return nil
}
