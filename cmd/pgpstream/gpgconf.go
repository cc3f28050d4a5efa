package main

import (
	"fmt"
	"sort"
	"strings"
)

// gnupgVersion is the GnuPG release whose command line pgpstream speaks,
// and the version it reports where clients look for one. Each client
// parses the first line of --version differently, and all of them accept
// exactly gpg's "gpg (GnuPG) X.Y.Z": python-gnupg matches
// `gpg \(GnuPG(?:/MacGPG2)?\) (\d+(\.\d+)*)` from the first byte;
// duplicity `^gpg.*\(GnuPG(?:/MacGPG2)?\) X.Y.Z(-.+)?$`; debsign takes the
// third space-separated field; GPGME the text after the last space;
// Emacs EPG reads cfg:version from --list-config --with-colons and
// compares it with version<, which refuses a suffix it does not know. So
// the first line is gpg's, and pgpstream names itself on the second, where
// gpg names libgcrypt.
const gnupgVersion = "2.2.40"

// Algorithm names and ids as gpg's --version shows them: what pgpstream
// reads.
var (
	cfgPubkey   = []algoName{{1, "RSA"}, {16, "ELG"}, {17, "DSA"}, {18, "ECDH"}, {19, "ECDSA"}, {22, "EDDSA"}}
	cfgCipher   = []algoName{{2, "3DES"}, {3, "CAST5"}, {4, "BLOWFISH"}, {7, "AES"}, {8, "AES192"}, {9, "AES256"}, {10, "TWOFISH"}}
	cfgDigest   = []algoName{{2, "SHA1"}, {3, "RIPEMD160"}, {8, "SHA256"}, {9, "SHA384"}, {10, "SHA512"}, {11, "SHA224"}}
	cfgCompress = []algoName{{0, "Uncompressed"}, {1, "ZIP"}, {2, "ZLIB"}, {3, "BZIP2"}}
	cfgCurves   = []string{"cv25519", "ed25519", "nistp256", "nistp384", "nistp521", "brainpoolP256r1", "brainpoolP384r1", "brainpoolP512r1", "ed448", "cv448"}
)

// The subsets --list-config shows: what --cipher-algo, --digest-algo and
// --compress-algo accept. A client reads these lines to choose what to
// ask for (GnuPG's tests encrypt, sign and compress with each one), so
// they name only what pgpstream writes; in gpg the two lists are one.
var (
	cfgWriteCipher   = []algoName{{7, "AES"}, {8, "AES192"}, {9, "AES256"}}
	cfgWriteDigest   = []algoName{{2, "SHA1"}, {8, "SHA256"}, {9, "SHA384"}, {10, "SHA512"}, {11, "SHA224"}}
	cfgWriteCompress = []algoName{{0, "Uncompressed"}, {1, "ZIP"}, {2, "ZLIB"}}
)

type algoName struct {
	id   int
	name string
}

func names(as []algoName, sep string) string {
	var out []string
	for _, a := range as {
		out = append(out, a.name)
	}
	return strings.Join(out, sep)
}

func ids(as []algoName) string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprint(a.id))
	}
	return strings.Join(out, ";")
}

// printGnuPGVersion is --version: gpg's shape first (see gnupgVersion),
// then what `pgpstream version` prints about the CPU and the engines.
func printGnuPGVersion(st *state, o *options) error {
	w := st.stdout
	fmt.Fprintf(w, "gpg (GnuPG) %s\n", gnupgVersion)
	fmt.Fprintf(w, "pgpstream %s (speaks GnuPG %s's command line; it is not GnuPG)\n", version, gnupgVersion)
	fmt.Fprintf(w, "\nHome: %s\n", o.home)
	fmt.Fprintln(w, "Supported algorithms:")
	fmt.Fprintf(w, "Pubkey: %s\n", names(cfgPubkey, ", "))
	fmt.Fprintf(w, "Cipher: %s\n", names(cfgCipher, ", "))
	fmt.Fprintf(w, "Hash: %s\n", names(cfgDigest, ", "))
	fmt.Fprintf(w, "Compression: %s\n\n", names(cfgCompress, ", "))
	return printVersion(st)
}

// listConfig is --list-config [NAME...]: gpg's cfg: lines, all of them or
// the ones named, and the groups as gpg lists them.
func listConfig(st *state, o *options) error {
	lines := []struct{ name, value string }{
		{"version", gnupgVersion},
		{"pubkey", ids(cfgPubkey)},
		{"pubkeyname", names(cfgPubkey, ";")},
		{"cipher", ids(cfgWriteCipher)},
		{"ciphername", names(cfgWriteCipher, ";")},
		{"digest", ids(cfgWriteDigest)},
		{"digestname", names(cfgWriteDigest, ";")},
		{"compress", ids(cfgWriteCompress)},
		{"compressname", names(cfgWriteCompress, ";")},
		{"curve", strings.Join(cfgCurves, ";")},
	}
	want := map[string]bool{}
	for _, a := range o.args {
		want[strings.ToLower(a)] = true
	}
	for _, g := range o.groups {
		lines = append(lines, struct{ name, value string }{"group", g.name + ":" + strings.Join(g.members, ";")})
	}
	for _, l := range lines {
		if len(want) == 0 || want[l.name] {
			fmt.Fprintf(st.stdout, "cfg:%s:%s\n", l.name, l.value)
		}
	}
	return nil
}

// dumpOptions is --dump-options: every long option, as gpg prints them.
func dumpOptions(st *state) error {
	for _, d := range optionTable {
		fmt.Fprintf(st.stdout, "--%s\n", d.long)
	}
	return nil
}

// gpgconfList is --gpgconf-list: the defaults gpgconf 2.2 asks gpg for
// before it lists or changes gpg's options, in gpg 2.2.40's lines (16 is
// gpgconf's "this is the default" flag). The default key is what
// --quick-gen-key makes with ALGO "default".
func gpgconfList(st *state) error {
	fmt.Fprint(st.stdout, "debug-level:16:\"none:\n",
		"compliance:16:\"gnupg:\n",
		"default_pubkey_algo:16:\"ed25519/cert,sign+cv25519/encr:\n",
		"compliance_de_vs:16:0:\n")
	return nil
}

// dumpOptionTable is --dump-option-table in gpg's format, which gpgconf
// reads: NAME:ID:FLAGS:DESCRIPTION:, ID the short option's character or a
// number above 255, FLAGS 128 for a command, 1 for a number, 2 for a
// string, 0 for none; "@" hides the description.
func dumpOptionTable(st *state) error {
	for i, d := range optionTable {
		id := 1000 + i
		if d.short != 0 {
			id = int(d.short)
		}
		flags := 0
		switch {
		case d.kind == kCommand:
			flags = 128
		case d.arg == "N":
			flags = 1
		case d.arg != "":
			flags = 2
		}
		desc := d.usage
		if d.hidden || d.kind == kNoop || desc == "" {
			desc = "@"
		}
		fmt.Fprintf(st.stdout, "%s:%d:%d:%s:\n", d.long, id, flags, strings.ReplaceAll(desc, ":", ";"))
	}
	return nil
}

// compatMarkdown is README's list of gpg's options that pgpstream accepts
// and that change nothing, made from the option table (a test keeps
// README equal to it).
func compatMarkdown() string {
	var rows []string
	for _, d := range optionTable {
		if d.kind != kNoop || d.alias != "" {
			continue
		}
		name := "`--" + d.long
		if d.arg != "" {
			name += " " + d.arg
		}
		rows = append(rows, fmt.Sprintf("| %s` | %s |", name, d.usage))
	}
	sort.Strings(rows)
	return "| option | why it changes nothing |\n|---|---|\n" + strings.Join(rows, "\n") + "\n"
}
