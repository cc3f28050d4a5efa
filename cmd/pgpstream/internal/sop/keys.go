package sop

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/pgpstream/pgpstream/keyring"
)

var versionCmd = &command{
	name:     "version",
	synopsis: "version [--backend|--extended|--sop-spec|--sopv]",
	flags:    []flagSpec{{name: "backend"}, {name: "extended"}, {name: "sop-spec"}, {name: "sopv"}},
	run:      runVersion,
}

func runVersion(c *call) error {
	if err := c.noArgs(); err != nil {
		return err
	}
	var which []string
	for _, f := range []string{"backend", "extended", "sop-spec", "sopv"} {
		if c.set[f] {
			which = append(which, "--"+f)
		}
	}
	if len(which) > 1 {
		return fail(codeIncompatibleOptions, "version: %s ask for different things; give one", strings.Join(which, " and "))
	}
	line := "pgpstream " + c.env.Version
	var out []string
	switch {
	case c.set["backend"]:
		out = []string{line + " (its own OpenPGP data path; " + goCryptoVersion() + " for public-key operations)"}
	case c.set["extended"]:
		out = []string{line, goCryptoVersion(), runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, SpecRevision}
	case c.set["sop-spec"]:
		out = []string{SpecRevision,
			"Not implemented: " + strings.Join(sortedKeys(unsupported), ", ") + " (UNSUPPORTED_SUBCOMMAND), encrypt --for and a second decrypt --with-session-key (UNSUPPORTED_OPTION)."}
	case c.set["sopv"]:
		out = []string{"1.0"}
	default:
		out = []string{line}
	}
	_, err := io.WriteString(c.env.Stdout, strings.Join(out, "\n")+"\n")
	return err
}

// goCryptoVersion names the go-crypto module the binary was built with.
func goCryptoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/ProtonMail/go-crypto" {
				return "go-crypto " + m.Version
			}
		}
	}
	return "go-crypto"
}

var listProfilesCmd = &command{
	name:     "list-profiles",
	synopsis: "list-profiles SUBCOMMAND",
	run:      runListProfiles,
}

func runListProfiles(c *call) error {
	if len(c.args) == 0 {
		return fail(codeMissingArg, "list-profiles: name the subcommand (generate-key or encrypt)")
	}
	if len(c.args) > 1 {
		return fail(codeUnsupportedOption, "list-profiles takes one subcommand, got %d", len(c.args))
	}
	var lines []string
	switch c.args[0] {
	case "generate-key":
		for _, p := range keyProfiles {
			lines = append(lines, p.name+": "+p.desc)
		}
	case "encrypt":
		for _, p := range encryptProfiles {
			lines = append(lines, p.name+": "+p.desc)
		}
	default:
		return fail(codeUnsupportedProfile, "list-profiles: %q takes no --profile here (generate-key and encrypt do)", c.args[0])
	}
	_, err := io.WriteString(c.env.Stdout, strings.Join(lines, "\n")+"\n")
	return err
}

// keyProfile is a kind of key generate-key makes. The first is the
// default; "default" names it too.
type keyProfile struct {
	name, desc string
	algo       string
	v6         bool
}

var keyProfiles = []keyProfile{
	{"default", "a v4 key: Ed25519 (EdDSA) signs and certifies, X25519 (ECDH) encrypts; read by GnuPG 2.2, RNP, Sequoia, GopenPGP and OpenPGP.js", "ed25519", false},
	{"rfc4880", "a v4 key of RFC 4880's algorithms: RSA 3072 signs and certifies, an RSA 3072 subkey encrypts", "rsa3072", false},
	{"rfc9580", "a v6 key (RFC 9580): Ed25519 signs and certifies, X25519 encrypts", "ed25519", true},
}

func findKeyProfile(name string) (keyProfile, error) {
	if name == "" {
		return keyProfiles[0], nil
	}
	for _, p := range keyProfiles {
		if p.name == name {
			return p, nil
		}
	}
	return keyProfile{}, fail(codeUnsupportedProfile, "generate-key: no profile %q; see list-profiles generate-key", name)
}

var generateKeyCmd = &command{
	name:     "generate-key",
	synopsis: "generate-key [--no-armor] [--with-key-password=PASSWORD] [--profile=PROFILE] [--signing-only] [--] [USERID...]",
	flags:    append([]flagSpec{{name: "with-key-password", value: true}, {name: "profile", value: true}, {name: "signing-only"}}, armorFlags...),
	run:      runGenerateKey,
}

func runGenerateKey(c *call) error {
	p, err := findKeyProfile(c.value("profile"))
	if err != nil {
		return err
	}
	opt := keyring.MakeOptions{UserIDs: c.args, Algo: p.algo, V6: p.v6, SigningOnly: c.set["signing-only"]}
	if name := c.value("with-key-password"); name != "" {
		if opt.Passphrase, err = c.newPassword(name); err != nil {
			return err
		}
	}
	k, err := keyring.MakeKey(opt)
	if errors.Is(err, keyring.ErrV4NeedsUserID) {
		return fail(codeMissingArg, "generate-key: profile %s makes a v4 key, which needs a USERID (or use --profile=rfc9580 for a v6 key without one)", p.name)
	}
	if err != nil {
		return failWith(codeUnspecificFailure, err, "generate-key")
	}
	return keyring.WriteKeys(c.env.Stdout, []*keyring.Key{k}, true, c.armored())
}

var changeKeyPasswordCmd = &command{
	name:     "change-key-password",
	synopsis: "change-key-password [--no-armor] [--new-key-password=PASSWORD] [--old-key-password=PASSWORD...] < KEYS > KEYS",
	flags:    append([]flagSpec{{name: "new-key-password", value: true}, {name: "old-key-password", value: true, multi: true}}, armorFlags...),
	run:      runChangeKeyPassword,
}

func runChangeKeyPassword(c *call) error {
	if err := c.noArgs(); err != nil {
		return err
	}
	var newPass []byte
	if name := c.value("new-key-password"); name != "" {
		var err error
		if newPass, err = c.newPassword(name); err != nil {
			return err
		}
	}
	old, err := c.passwords("old-key-password")
	if err != nil {
		return err
	}
	keys, err := c.keysFromStdin()
	if err != nil {
		return err
	}
	var out []*keyring.Key
	for _, nk := range keys {
		k, err := nk.key.Reprotect(old, newPass)
		if err != nil {
			return lockedError(err, nk.key)
		}
		out = append(out, k)
	}
	return keyring.WriteKeys(c.env.Stdout, out, true, c.armored())
}

var revokeKeyCmd = &command{
	name:     "revoke-key",
	synopsis: "revoke-key [--no-armor] [--with-key-password=PASSWORD...] < KEYS > CERTS",
	flags:    append([]flagSpec{{name: "with-key-password", value: true, multi: true}}, armorFlags...),
	run:      runRevokeKey,
}

func runRevokeKey(c *call) error {
	if err := c.noArgs(); err != nil {
		return err
	}
	pass, err := c.passwords("with-key-password")
	if err != nil {
		return err
	}
	keys, err := c.keysFromStdin()
	if err != nil {
		return err
	}
	var out []*keyring.Key
	for _, nk := range keys {
		k, err := nk.key.Revoke(pass)
		if err != nil {
			return lockedError(err, nk.key)
		}
		out = append(out, k)
	}
	return keyring.WriteKeys(c.env.Stdout, out, false, c.armored())
}

var extractCertCmd = &command{
	name:     "extract-cert",
	synopsis: "extract-cert [--no-armor] < KEYS > CERTS",
	flags:    armorFlags,
	run:      runExtractCert,
}

func runExtractCert(c *call) error {
	if err := c.noArgs(); err != nil {
		return err
	}
	keys, err := c.keysFromStdin()
	if err != nil {
		return err
	}
	if err := keyring.WriteKeys(c.env.Stdout, keysOnly(keys), false, c.armored()); err != nil {
		return fmt.Errorf("extract-cert: %w", err)
	}
	return nil
}
