package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgpstream/pgpstream/packet"
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

// What pgpstream reads, as gpg's --version and --list-config name the
// algorithms. The ciphers and hashes are asked of package packet, which
// the decoder itself uses, so the lists cannot claim more or less than it
// does; the rest are the formats filter reads (a test decrypts a message
// in each). gpg lists one set: what it reads it also writes.
var (
	cfgPubkey = pubkeys(packet.PubKeyRSA, packet.PubKeyElGamal, packet.PubKeyDSA, packet.PubKeyECDH, packet.PubKeyECDSA,
		packet.PubKeyEdDSA, packet.PubKeyX25519, packet.PubKeyX448, packet.PubKeyEd25519, packet.PubKeyEd448)
	cfgCipher   = readCiphers()
	cfgDigest   = readDigests()
	cfgCompress = []algoName{{0, "Uncompressed"}, {1, "ZIP"}, {2, "ZLIB"}, {3, "BZIP2"}}
	cfgAEAD     = []algoName{{1, "EAX"}, {2, "OCB"}, {3, "GCM"}}
	cfgCurves   = []string{"cv25519", "ed25519", "nistp256", "nistp384", "nistp521", "brainpoolP256r1", "brainpoolP384r1", "brainpoolP512r1", "ed448", "cv448"}
)

// What pgpstream writes: what --cipher-algo, --digest-algo,
// --compress-algo and --aead-algo accept. --list-config's cipher, digest
// and compress lines name these, since a client reads them to choose what
// to ask for (GnuPG's tests encrypt, sign and compress with each one);
// readcipher, readdigest and readcompress name what is read. The digest
// line leaves out SHA3-256 and SHA3-512, which pgpstream signs with but
// gpg 2.2 does not know: a client of gpg 2.2 (GnuPG's own tests among
// them) would sign with them and hand the signature to a gpg that cannot
// check it; --version names them.
var (
	cfgWriteCipher   = []algoName{{7, "AES"}, {8, "AES192"}, {9, "AES256"}}
	cfgWriteDigest   = []algoName{{2, "SHA1"}, {8, "SHA256"}, {9, "SHA384"}, {10, "SHA512"}, {11, "SHA224"}}
	cfgWriteSHA3     = []algoName{{12, "SHA3-256"}, {14, "SHA3-512"}}
	cfgWriteCompress = []algoName{{0, "Uncompressed"}, {1, "ZIP"}, {2, "ZLIB"}, {3, "BZIP2"}}
)

// readCiphers are the ciphers packet makes a block cipher for, in id
// order, named as gpg names them (AES for AES128).
func readCiphers() []algoName {
	var out []algoName
	for id := 1; id < 256; id++ {
		c := packet.CipherAlgo(id)
		if c.KeySize() == 0 {
			continue
		}
		if _, err := c.NewBlock(make([]byte, c.KeySize())); err != nil {
			continue
		}
		name := c.String()
		if c == packet.CipherAES128 {
			name = "AES"
		}
		out = append(out, algoName{id, name})
	}
	return out
}

// readDigests are the hashes packet can compute, in id order.
func readDigests() []algoName {
	var out []algoName
	for id := 1; id < 256; id++ {
		if h := packet.HashAlgo(id); h.Supported() {
			out = append(out, algoName{id, h.String()})
		}
	}
	return out
}

// pubkeys are the algorithms as gpg names them (packet.PubKeyAlgo.GPGName).
func pubkeys(as ...packet.PubKeyAlgo) []algoName {
	out := make([]algoName, len(as))
	for i, a := range as {
		out[i] = algoName{int(a), a.GPGName()}
	}
	return out
}

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
// with what pgpstream reads under gpg's "Supported algorithms:", then
// what it writes, then what `pgpstream version` prints about the CPU and
// the engines.
func printGnuPGVersion(st *state, o *options) error {
	w := st.stdout
	fmt.Fprintf(w, "gpg (GnuPG) %s\n", gnupgVersion)
	fmt.Fprintf(w, "pgpstream %s (speaks GnuPG %s's command line; it is not GnuPG)\n", version, gnupgVersion)
	fmt.Fprintf(w, "\nHome: %s\n", o.home)
	fmt.Fprintln(w, "Supported algorithms:")
	fmt.Fprintf(w, "Pubkey: %s\n", names(cfgPubkey, ", "))
	fmt.Fprintf(w, "Cipher: %s\n", names(cfgCipher, ", "))
	fmt.Fprintf(w, "Hash: %s\n", names(cfgDigest, ", "))
	fmt.Fprintf(w, "Compression: %s\n", names(cfgCompress, ", "))
	fmt.Fprintf(w, "AEAD: %s\n", names(cfgAEAD, ", "))
	fmt.Fprintln(w, "pgpstream reads all of these, and writes only:")
	fmt.Fprintf(w, "  Cipher: %s\n", names(cfgWriteCipher, ", "))
	fmt.Fprintf(w, "  Hash: %s, %s (SHA1 with --allow-weak-digest-algos)\n", names(cfgWriteDigest, ", "), names(cfgWriteSHA3, ", "))
	fmt.Fprintf(w, "  Compression: %s\n", names(cfgWriteCompress, ", "))
	fmt.Fprintf(w, "  AEAD: %s\n\n", names(cfgAEAD, ", "))
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
		{"readcipher", ids(cfgCipher)},
		{"readciphername", names(cfgCipher, ";")},
		{"readdigest", ids(cfgDigest)},
		{"readdigestname", names(cfgDigest, ";")},
		{"readcompress", ids(cfgCompress)},
		{"readcompressname", names(cfgCompress, ";")},
		{"aead", ids(cfgAEAD)},
		{"aeadname", names(cfgAEAD, ";")},
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
