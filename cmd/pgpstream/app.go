package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// The commands are flags, as in gpg; exactly one may be given (--encrypt
// and --symmetric combine into one).
var commandFlags = []string{
	"encrypt", "symmetric", "decrypt", "import", "list-keys", "list-secret-keys",
	"export", "export-secret-keys", "quick-gen-key", "delete-keys", "delete-secret-keys", "delete-secret-and-public-key",
	"sign", "detach-sign", "verify",
}

func newApp(st *state) *cli.App {
	app := &cli.App{
		Name:  "pgpstream",
		Usage: "OpenPGP encryption and decryption at the speed of the primitives, with gpg's flags",
		UsageText: `pgpstream [options] --encrypt -r KEY [FILE]
   pgpstream [options] --symmetric [FILE]
   pgpstream [options] --decrypt [FILE]
   pgpstream [options] --sign [-e -r KEY] [-u KEY] [FILE] | --detach-sign [FILE]
   pgpstream [options] --verify [SIG] [FILE]
   pgpstream --import [FILE...] | --list-keys [PATTERN...] | --quick-gen-key UID [ALGO]`,
		HideVersion:            true,
		UseShortOptionHandling: true,
		Writer:                 st.stdout,
		ErrWriter:              st.stderr,
		Reader:                 st.stdin,
		ExitErrHandler:         func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
				// The flag package names every option with one dash.
				if len(name) > 1 {
					name = "-" + name
				}
				msg = "unknown option -" + name
			}
			return usageError{msg: msg, hints: []string{"see pgpstream --help"}}
		},
		DisableSliceFlagSeparator: true,
		Flags:                     flags(),
		Before:                    hwfBefore(st),
		Action:                    withProfile(st, func(c *cli.Context) error { return dispatch(st, c) }),
		Commands:                  []*cli.Command{benchCommand(st), versionCommand(st)},
	}
	return app
}

func flags() []cli.Flag {
	cmd := "Commands"
	enc := "Encryption"
	key := "Keys and passphrases"
	out := "Input and output"
	diag := "Diagnostics"
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "encrypt", Aliases: []string{"e"}, Usage: "encrypt to the recipients (-r, -f)", Category: cmd},
		&cli.BoolFlag{Name: "symmetric", Aliases: []string{"c"}, Usage: "encrypt with a passphrase (alone or with --encrypt)", Category: cmd},
		&cli.BoolFlag{Name: "decrypt", Aliases: []string{"d"}, Usage: "decrypt FILE or standard input", Category: cmd},
		&cli.BoolFlag{Name: "sign", Aliases: []string{"s"}, Usage: "sign (alone, or with --encrypt/--symmetric inside the encryption)", Category: cmd},
		&cli.BoolFlag{Name: "detach-sign", Aliases: []string{"b"}, Usage: "write a detached signature", Category: cmd},
		&cli.BoolFlag{Name: "verify", Usage: "check a signed message [FILE], or a detached signature: SIG [FILE]", Category: cmd},
		&cli.BoolFlag{Name: "import", Usage: "import keys from FILEs or standard input (armored or binary)", Category: cmd},
		&cli.BoolFlag{Name: "list-keys", Aliases: []string{"k"}, Usage: "list public keys", Category: cmd},
		&cli.BoolFlag{Name: "list-secret-keys", Aliases: []string{"K"}, Usage: "list secret keys", Category: cmd},
		&cli.BoolFlag{Name: "export", Usage: "export public keys", Category: cmd},
		&cli.BoolFlag{Name: "export-secret-keys", Usage: "export secret keys", Category: cmd},
		&cli.BoolFlag{Name: "quick-gen-key", Usage: "generate a key: UID [ALGO] (ALGO: future-default, ed25519, rsa3072, rsa4096, nistp256, ed448)", Category: cmd},
		&cli.BoolFlag{Name: "delete-keys", Aliases: []string{"delete-key"}, Usage: "delete public keys by full fingerprint (needs --batch --yes)", Category: cmd},
		&cli.BoolFlag{Name: "delete-secret-keys", Aliases: []string{"delete-secret-key"}, Usage: "delete the secret parts of keys by full fingerprint (needs --batch --yes)", Category: cmd},
		&cli.BoolFlag{Name: "delete-secret-and-public-key", Aliases: []string{"delete-secret-and-public-keys"}, Usage: "delete keys with their secret parts by full fingerprint (needs --batch --yes)", Category: cmd},

		&cli.StringSliceFlag{Name: "recipient", Aliases: []string{"r"}, Usage: "encrypt to KEY, one key each: fingerprint, key ID, <addr>, @part, =uid or user ID substring", Category: enc},
		&cli.StringSliceFlag{Name: "hidden-recipient", Aliases: []string{"R"}, Usage: "like -r, but the message does not name the key", Category: enc},
		&cli.StringSliceFlag{Name: "recipient-file", Aliases: []string{"f"}, Usage: "encrypt to the certificate in FILE", Category: enc},
		&cli.StringFlag{Name: "cipher-algo", Value: "AES256", Usage: "cipher to write: AES128, AES192 or AES256", Category: enc},
		&cli.StringFlag{Name: "compress-algo", Value: "none", Usage: "compression to write: none, zip, zlib (also gpg's numbers 0-2)", Category: enc},
		&cli.IntFlag{Name: "compress-level", Aliases: []string{"z"}, Usage: "compression level 0-9 (0: none)", Value: -1, Category: enc},
		&cli.StringFlag{Name: "digest-algo", Usage: "hash for signatures: SHA256 (default), SHA384, SHA512, SHA224 or SHA1", Category: enc},
		&cli.StringSliceFlag{Name: "local-user", Aliases: []string{"u"}, Usage: "sign with KEY (default: the first secret key that can sign)", Category: enc},
		&cli.BoolFlag{Name: "allow-weak-digest-algos", Usage: "check SHA-1 data signatures made after 2013-02-01, which are otherwise refused, and allow --digest-algo SHA1", Category: enc},
		&cli.BoolFlag{Name: "legacy-literal-hash", Usage: "check a signature that follows the data with no one-pass packet (old GnuPG); hashes every message with SHA1 and RIPEMD160", Category: enc},
		&cli.BoolFlag{Name: "force-aead", Usage: "write AEAD encrypted data: RFC 9580 SEIPD v2, or with --rfc4880bis the LibrePGP packet GnuPG 2.4 writes", Category: enc},
		&cli.BoolFlag{Name: "force-ocb", Usage: "gpg 2.4's spelling of --force-aead", Category: enc},
		&cli.BoolFlag{Name: "rfc4880bis", Usage: "write AEAD as LibrePGP's AEAD Encrypted Data packet (tag 20, SKESK v5), which GnuPG 2.4 reads", Category: enc},
		&cli.StringFlag{Name: "aead-algo", Value: "OCB", Usage: "AEAD mode to write: OCB, EAX, or GCM (GCM for SEIPD v2 only)", Category: enc},
		&cli.IntFlag{Name: "chunk-size", Value: 22, Usage: "AEAD chunk size as gpg's exponent N, 2^N bytes: 6 (64 B) to 22 (4 MiB)", Category: enc},
		&cli.IntFlag{Name: "threads", Usage: "AEAD chunks encrypted or decrypted at once (default: one per CPU)", Category: enc},

		&cli.StringFlag{Name: "homedir", Usage: "key directory (default $PGPSTREAM_HOME, else ~/.pgpstream)", Category: key},
		&cli.StringFlag{Name: "passphrase", Usage: "the passphrase itself (visible to other users in ps: prefer --passphrase-file or --passphrase-fd)", Category: key},
		&cli.StringFlag{Name: "passphrase-file", Usage: "read the passphrase from the first line of FILE", Category: key},
		&cli.IntFlag{Name: "passphrase-fd", Value: -1, Usage: "read the passphrase from file descriptor N (0: standard input)", Category: key},
		&cli.StringFlag{Name: "pinentry-mode", Usage: "accepted for gpg compatibility (pgpstream always asks itself)", Category: key},
		&cli.BoolFlag{Name: "with-colons", Usage: "list keys in gpg's machine-readable format", Category: key},
		&cli.BoolFlag{Name: "no-permission-warning", Usage: "do not warn about a home or secret ring that other users may read", Category: key},
		&cli.BoolFlag{Name: "allow-weak-key-signatures", Usage: "accept SHA-1 self-signatures made after 2023-02-01 (rejected by default)", Category: key},
		&cli.IntFlag{Name: "key-version", Value: 4, Usage: "--quick-gen-key makes a version 4 or an RFC 9580 version 6 key", Category: key},

		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to FILE (- for standard output)", Category: out},
		&cli.BoolFlag{Name: "armor", Aliases: []string{"a"}, Usage: "write ASCII armor", Category: out},
		&cli.BoolFlag{Name: "batch", Usage: "never ask anything", Category: out},
		&cli.BoolFlag{Name: "yes", Usage: "assume yes: overwrite files, delete keys", Category: out},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "say less", Category: out},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "say more", Category: out},
		&cli.BoolFlag{Name: "allow-unprotected", Aliases: []string{"ignore-mdc-error"}, Usage: "DANGEROUS: read Symmetrically Encrypted Data (tag 9), which has no integrity protection, and write the data of an unencrypted message no signature vouches for", Category: out},
		&cli.Int64Flag{Name: "max-output", Value: 0, Usage: "refuse compressed data that inflates beyond N bytes (0: no limit)", Category: out},
		&cli.BoolFlag{Name: "version", Usage: "print the version", Category: out},
		&cli.BoolFlag{Name: "progress", Usage: "show bytes done, rate and ETA on standard error (default when it is a terminal, without --batch)", Category: out},
		&cli.BoolFlag{Name: "no-progress", Usage: "never show progress", Category: out},
		&cli.IntFlag{Name: "status-fd", Value: -1, Usage: "write gpg's machine-readable status lines to file descriptor N", Category: out},
		&cli.StringFlag{Name: "status-file", Usage: "write gpg's machine-readable status lines to FILE", Category: out},
	}, append([]cli.Flag{
		&cli.StringSliceFlag{Name: "disable-hwf", Usage: "switch off a CPU feature for every engine: " + strings.Join(hwfNames(), ", ") + " (repeatable)", Category: diag},
	}, profilingFlags(diag)...)...)
}

func dispatch(st *state, c *cli.Context) error {
	st.quiet, st.verbose = c.Bool("quiet"), c.Bool("verbose")
	if c.Bool("version") {
		return printVersion(st)
	}
	var chosen []string
	for _, name := range commandFlags {
		if c.Bool(name) {
			chosen = append(chosen, name)
		}
	}
	chosen = foldSign(chosen)
	if len(chosen) == 2 && chosen[0] == "encrypt" && chosen[1] == "symmetric" {
		chosen = []string{"encrypt"}
	}
	switch {
	case len(chosen) == 0:
		if c.NArg() == 0 {
			return usageError{msg: "no command given", hints: []string{"use --encrypt, --symmetric, --decrypt, --import or --list-keys; see pgpstream --help"}}
		}
		// gpg decrypts when given only a file.
		chosen = []string{"decrypt"}
	case len(chosen) > 1:
		return usagef("conflicting commands: --%s", strings.Join(chosen, " and --"))
	}
	switch chosen[0] {
	case "encrypt", "symmetric":
		return cmdEncrypt(st, c)
	case "decrypt":
		return cmdDecrypt(st, c)
	case "sign":
		return cmdSign(st, c, false)
	case "detach-sign":
		return cmdSign(st, c, true)
	case "verify":
		return cmdVerify(st, c)
	case "import":
		return cmdImport(st, c)
	case "list-keys":
		return cmdListKeys(st, c, false)
	case "list-secret-keys":
		return cmdListKeys(st, c, true)
	case "export":
		return cmdExport(st, c, false)
	case "export-secret-keys":
		return cmdExport(st, c, true)
	case "quick-gen-key":
		return cmdGenKey(st, c)
	case "delete-keys":
		return cmdDelete(st, c, "public")
	case "delete-secret-keys":
		return cmdDelete(st, c, "secret")
	case "delete-secret-and-public-key":
		return cmdDelete(st, c, "both")
	}
	return usagef("unknown command %q", chosen[0])
}
