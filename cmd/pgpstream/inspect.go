package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/inspect"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// The commands that look at data without changing it: --list-packets,
// --show-keys, the listing options, --dearmor, --enarmor and the inspect
// subcommand. They read what they need from inspectArgs, filled in one
// place from the command line.

type inspectArgs struct {
	args           []string
	output         fileArg
	colons, json   bool
	list           keyring.ListOptions
	showSessionKey bool
	maxOutput      int64
}

func inspectArgsOf(o *options) inspectArgs {
	a := inspectArgs{
		args:           o.args,
		output:         o.output,
		colons:         o.withColons,
		json:           o.json,
		showSessionKey: o.showSessionKey,
		maxOutput:      o.maxOutput,
	}
	a.list = keyring.ListOptions{
		Colons:             a.colons,
		Fingerprint:        o.listFingerprint,
		SubkeyFingerprints: o.withSubkeyFpr,
		Keygrip:            o.withKeygrip,
		KeyOrigin:          o.withKeyOrigin,
		Sigs:               o.listSigs,
		CheckSigs:          o.checkSigs,
		JSON:               a.json,
		TOFUInfo:           o.withTOFUInfo,
	}
	return a
}

// importPolicy is what --import-options says of other keys' signatures,
// and --key-origin of where the keys come from.
func importPolicy(o *options) keyring.ImportOptions {
	return keyring.ImportOptions{SelfSigsOnly: o.importOpts.selfSigsOnly, LocalSigs: o.importOpts.localSigs, Origin: o.keyOrigin}
}

// cmdList is --list-keys/-K with gpg's listing options, --fingerprint,
// --list-sigs and --check-sigs.
func cmdList(st *state, o *options, secret bool) error {
	a := inspectArgsOf(o)
	a.list.Secret = secret
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	out, err := openOutput(st, o, a.output, false)
	if err != nil {
		return err
	}
	counts, err := ring.List(out.W, a.args, a.list)
	if err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return reportSigCounts(st, a, counts)
}

// reportSigCounts says what --check-sigs found, as gpg does on stderr.
func reportSigCounts(st *state, a inspectArgs, n keyring.SigCounts) error {
	if !a.list.CheckSigs || st.quiet {
		return nil
	}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
	if n.Good > 0 {
		fmt.Fprintf(st.stderr, "pgpstream: %d good %s\n", n.Good, plural(n.Good, "signature", "signatures"))
	}
	if n.Bad > 0 {
		fmt.Fprintf(st.stderr, "pgpstream: %d bad %s\n", n.Bad, plural(n.Bad, "signature", "signatures"))
	}
	if n.NoKey > 0 {
		fmt.Fprintf(st.stderr, "pgpstream: %d %s not checked due to a missing key\n", n.NoKey, plural(n.NoKey, "signature", "signatures"))
	}
	if n.Error > 0 {
		fmt.Fprintf(st.stderr, "pgpstream: %d %s not checked due to an error\n", n.Error, plural(n.Error, "signature", "signatures"))
	}
	return nil
}

// cmdShowKeys lists the keys in files (or standard input) without
// importing them: --show-keys, --import --import-options show-only.
func cmdShowKeys(st *state, o *options) error {
	a := inspectArgsOf(o)
	inputs := a.args
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	out, err := openOutput(st, o, a.output, false)
	if err != nil {
		return err
	}
	var total keyring.SigCounts
	for _, name := range inputs {
		r, closeIn, err := openNamed(st, o, name)
		if err != nil {
			out.Abort()
			return err
		}
		n, err := keyring.ShowKeys(out.W, r, ring, a.list)
		closeIn()
		if err != nil {
			out.Abort()
			return fmt.Errorf("reading keys from %s: %w", displayName(name), err)
		}
		total.Good, total.Bad, total.NoKey, total.Error = total.Good+n.Good, total.Bad+n.Bad, total.NoKey+n.NoKey, total.Error+n.Error
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return reportSigCounts(st, a, total)
}

func displayName(name string) string {
	if name == "-" || name == "" {
		return "standard input"
	}
	return name
}

func openNamed(st *state, o *options, name string) (io.Reader, func(), error) {
	if name == "" {
		return st.stdin, func() {}, nil
	}
	r, _, done, err := openArg(st, o, name)
	return r, done, err
}

// cmdListPackets prints gpg's --list-packets listing, decrypting what the
// ring's keys or a passphrase open.
func cmdListPackets(st *state, o *options) error {
	a := inspectArgsOf(o)
	in, _, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	out, err := openOutput(st, o, a.output, false)
	if err != nil {
		return err
	}
	var packets []*inspect.Packet
	opt := inspect.ListOptions{
		Keys:            &ringKeys{ring: ring, pass: newPassphrases(st, o), st: st},
		MaxDecompressed: a.maxOutput,
		Packet: func(p *inspect.Packet) {
			if a.json {
				packets = append(packets, p)
				return
			}
			io.WriteString(out.W, p.Text())
		},
	}
	if a.showSessionKey {
		opt.SessionKey = func(ca packet.CipherAlgo, aead packet.AEADAlgo, key []byte) {
			st.say("session key: '%s'", sessionKeyString(ca, aead, key))
		}
	}
	var rep *recipientReport
	if o.listOnly {
		// The packets, not the data; the recipients as gpg reports
		// them (decrypt.go).
		sw, err := openStatus(st, o)
		if err != nil {
			return err
		}
		rep = &recipientReport{st: st, status: sw, ring: ring}
		opt.Keys = listOnlyKeys{rep}
		list := opt.Packet
		opt.Packet = func(p *inspect.Packet) {
			if p.Tag == 3 && p.Depth == 0 {
				rep.skesks++
			}
			list(p)
		}
	}
	lerr := inspect.ListPackets(in, opt)
	if rep != nil && errors.Is(lerr, inspect.ErrNotDecrypted) {
		lerr = nil
		rep.finish()
	}
	if a.json {
		if packets == nil {
			packets = []*inspect.Packet{}
		}
		if err := writeJSON(out.W, packets); err != nil {
			out.Abort()
			return err
		}
	}
	if lerr != nil {
		// What was listed stays: it is a description, not plaintext. As
		// gpg, encrypted data that could not be opened is listed from
		// outside and the exit status says it was not decrypted.
		if err := out.Commit(); err != nil {
			return err
		}
		return lerr
	}
	return out.Commit()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// cmdDearmor decodes ASCII armor: FILE is written to FILE.gpg unless
// --output says otherwise, standard input to standard output.
func cmdDearmor(st *state, o *options) error {
	return armorTool(st, o, ".gpg", func(in io.Reader, w io.Writer) error {
		ar, err := armor.NewReader(in)
		if err != nil {
			return err
		}
		_, err = io.Copy(w, ar)
		return err
	})
}

// cmdEnarmor armors any file the way gpg --enarmor does, byte for byte:
// "PGP ARMORED FILE" with gpg's Comment line, so `gpg --dearmor` and
// `pgpstream --dearmor` both undo it.
func cmdEnarmor(st *state, o *options) error {
	return armorTool(st, o, ".asc", func(in io.Reader, w io.Writer) error {
		aw := armor.NewWriter(w, "PGP ARMORED FILE", map[string]string{"Comment": `Use "gpg --dearmor" for unpacking`})
		if _, err := io.Copy(aw, in); err != nil {
			return err
		}
		return aw.Close()
	})
}

func armorTool(st *state, o *options, suffix string, conv func(io.Reader, io.Writer) error) error {
	in, inName, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	outPath := defaultOutput(o, inName, suffix)
	if sameFile(inName, outPath) {
		return fmt.Errorf("input and output are the same file")
	}
	out, err := openOutput(st, o, outPath, false)
	if err != nil {
		return err
	}
	if err := conv(in, out.W); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}

// splitInspect recognises `pgpstream [options] inspect [--json] [FILE]`:
// gpg's options before the word, the subcommand's own after it.
func splitInspect(argv []string) (opts, rest []string, ok bool) {
	toks, args, _, err := scanArgs(argv)
	if err != nil || len(args) == 0 || args[0] != "inspect" || len(args) > len(argv) {
		return nil, nil, false
	}
	for _, t := range toks {
		if t.def.kind == kCommand {
			return nil, nil, false
		}
	}
	return argv[:len(argv)-len(args)], args[1:], true
}

// cmdInspect is `pgpstream inspect FILE`: what a file is, who can decrypt
// it and whether that is safe, without decrypting.
func cmdInspect(st *state, o *options, args []string) error {
	asJSON := o.json
	var files []string
	for _, a := range args {
		switch a {
		case "--json":
			asJSON = true
		case "-h", "--help":
			return showHelp(st, []string{"inspect"})
		default:
			if strings.HasPrefix(a, "--") {
				return usagef("inspect: unknown option %s", a)
			}
			files = append(files, a)
		}
	}
	if len(files) > 1 {
		return usagef("inspect takes one file (got %d)", len(files))
	}
	o.args = files
	in, inName, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	rep, err := inspect.Inspect(in, ring.LookupID)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(st.stdout, rep)
	}
	writeReport(st.stdout, displayName(inName), rep)
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeReport prints a Report for people.
func writeReport(w io.Writer, name string, r *inspect.Report) {
	fmt.Fprintf(w, "%s: %s", name, r.Kind)
	if r.Armored {
		fmt.Fprintf(w, ", ASCII armored (%s)", r.ArmorType)
	}
	fmt.Fprintln(w)
	if e := r.Encryption; e != nil {
		fmt.Fprintf(w, "  encrypted data: %s", e.Packet)
		if e.Cipher != "" {
			fmt.Fprintf(w, ", %s", e.Cipher)
		}
		if e.AEAD != "" {
			fmt.Fprintf(w, ", %s, chunks of %d bytes", e.AEAD, e.ChunkSize)
		}
		fmt.Fprintf(w, "; integrity: %s\n", e.Integrity)
	}
	for _, rc := range r.Recipients {
		who := rc.KeyID
		if rc.Fingerprint != "" {
			who = rc.Fingerprint
		}
		if rc.Hidden {
			who = "a hidden recipient"
		}
		fmt.Fprintf(w, "  recipient: %s (%s, PKESK v%d)", who, rc.Algorithm, rc.Version)
		switch {
		case rc.Secret:
			fmt.Fprintf(w, ", secret key here: %s", rc.UserID)
		case rc.Known:
			fmt.Fprintf(w, ", known, no secret key here: %s", rc.UserID)
		case !rc.Hidden:
			fmt.Fprint(w, ", not in the keyring")
		}
		fmt.Fprintln(w)
	}
	for _, p := range r.Passphrases {
		fmt.Fprintf(w, "  passphrase: SKESK v%d, S2K %s", p.Version, p.S2K)
		if p.Hash != "" {
			fmt.Fprintf(w, " %s", p.Hash)
		}
		if p.Count != 0 {
			fmt.Fprintf(w, ", %d octets hashed", p.Count)
		}
		if p.S2K == "argon2" {
			fmt.Fprintf(w, ", %d passes, parallelism %d, %d KiB", p.Passes, p.Parallelism, p.MemoryKiB)
		}
		if p.Cipher != "" {
			fmt.Fprintf(w, ", %s", p.Cipher)
		}
		if p.AEAD != "" {
			fmt.Fprintf(w, " %s", p.AEAD)
		}
		fmt.Fprintln(w)
	}
	for _, s := range r.Signatures {
		kind := "signature"
		if s.OnePass {
			kind = "one-pass signature"
		}
		who := s.KeyID
		if s.Fingerprint != "" {
			who = s.Fingerprint
		}
		fmt.Fprintf(w, "  %s: v%d %s, %s %s, by %s", kind, s.Version, s.Type, s.Algorithm, s.Hash, who)
		if s.Known {
			fmt.Fprintf(w, " (%s)", s.UserID)
		} else {
			fmt.Fprint(w, " (not in the keyring)")
		}
		fmt.Fprintln(w)
	}
	for _, k := range r.Keys {
		kind := "subkey"
		if k.Primary {
			kind = "primary key"
		}
		if k.Secret {
			kind = "secret " + kind
		}
		fmt.Fprintf(w, "  %s: v%d %s %s\n", kind, k.Version, k.Algorithm, k.Fingerprint)
	}
	for _, u := range r.UserIDs {
		fmt.Fprintf(w, "  user ID: %s\n", u)
	}
	if r.Literal != nil {
		fmt.Fprintf(w, "  literal data: format %s, file name %q\n", r.Literal.Format, r.Literal.FileName)
	}
	if r.Compression != "" {
		fmt.Fprintf(w, "  compression: %s\n", r.Compression)
	}
	if r.Encryption != nil {
		fmt.Fprintf(w, "  safe to decrypt: %s\n", yesNo(r.SafeToDecrypt))
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
}
