package status

// The lines pgpstream writes, in the order of GnuPG's doc/DETAILS
// sections. Field names follow DETAILS; a key ID is 16 hex digits, a
// fingerprint 40 or 64.

// --- Signatures ---

// NewSig starts the report on one signature. SignerUID is the signer's
// user ID subpacket as gpg shows it: printable (escape.Printable), the
// address alone when it holds one.
type NewSig struct {
	SignerUID string `status:"omitempty"`
}

// GoodSig: the signature is good.
type GoodSig struct {
	KeyID  string
	UserID Text
}

// ExpSig: good, but the signature has expired.
type ExpSig struct {
	KeyID  string
	UserID Text
}

// ExpKeySig: good, but made by an expired key.
type ExpKeySig struct {
	KeyID  string
	UserID Text
}

// RevKeySig: good, but made by a revoked key.
type RevKeySig struct {
	KeyID  string
	UserID Text
}

// BadSig: the signature does not verify.
type BadSig struct {
	KeyID  string
	UserID Text
}

// ErrSig: the signature could not be checked.
type ErrSig struct {
	KeyID   string
	PubAlgo int
	Hash    int
	Class   string // two hex digits
	Time    int64
	RC      int
	Fpr     string // "-" when unknown
}

// ValidSig: the signature is good, with its details.
type ValidSig struct {
	Fpr        string
	Date       string // YYYY-MM-DD
	Time       int64
	Expire     int64
	Version    int
	Reserved   int
	PubAlgo    int
	Hash       int
	Class      string
	PrimaryFpr string
}

// SigID is a signature's ID (gpg's RIPEMD-160-based hash, base64).
type SigID struct {
	ID   string
	Date string
	Time int64
}

// KeyRevoked: the signer's key was revoked.
type KeyRevoked struct{}

// KeyExpired: the key expired at Time.
type KeyExpired struct{ Time int64 }

// NoPubkey: the signer's key is not here.
type NoPubkey struct{ KeyID string }

// Trust is one of TRUST_UNDEFINED ... TRUST_ULTIMATE after a good
// signature.
type Trust struct {
	Level TrustLevel `status:"-"`
	Zero  int
	Model string
}

// TofuUser: the TOFU binding the TOFU_STATS line after it is about, a
// key and an address.
type TofuUser struct {
	Fpr   string
	Email string
}

// TofuStats: a TOFU binding's history, gpg's fields in gpg's order:
// the summary (0 needs attention, else Validity), the signatures and
// encryptions counted, the policy, the first and last signature and
// encryption seen, the validity of the history (1 to 4), the days with
// signatures and with encryptions.
type TofuStats struct {
	Summary           int
	Signatures        int64
	Encryptions       int64
	Policy            string
	FirstSig, LastSig int64
	FirstEnc, LastEnc int64
	Validity          int
	SigDays, EncDays  int64
}

// TofuStatsLong: the history in words, as gpg shows it on standard
// error, '~' standing for a space that must not wrap.
type TofuStatsLong struct{ Text Text }

// TrustLevel names a TRUST_ keyword.
type TrustLevel int

const (
	TrustUndefined TrustLevel = iota
	TrustNever
	TrustMarginal
	TrustFully
	TrustUltimate
)

var trustKeywords = [...]string{"TRUST_UNDEFINED", "TRUST_NEVER", "TRUST_MARGINAL", "TRUST_FULLY", "TRUST_ULTIMATE"}

// --- Key lookups ---

// KeyConsidered: a key was looked at; Flags bit 0 not selected, bit 1
// all subkeys unusable.
type KeyConsidered struct {
	Fpr   string
	Flags int
}

// InvRecp: a recipient was refused.
type InvRecp struct {
	Reason int
	Spec   Text
}

// InvSgnr: a signing key was refused.
type InvSgnr struct {
	Reason int
	Spec   Text
}

// NoSeckey: no secret key for a recipient.
type NoSeckey struct{ KeyID string }

// --- Decryption ---

// EncTo: the message is encrypted to KeyID.
type EncTo struct {
	KeyID   string
	PubAlgo int
	KeyLen  int
}

// BeginDecryption starts a decryption.
type BeginDecryption struct{}

// EndDecryption ends a decryption, good or bad.
type EndDecryption struct{}

// DecryptionKey names the key that opened the message.
type DecryptionKey struct {
	Fpr        string
	PrimaryFpr string
	OwnerTrust string
}

// DecryptionInfo: the MDC method, the cipher and the AEAD algorithm.
type DecryptionInfo struct {
	MDC    int
	Cipher int
	AEAD   int
}

// DecryptionOkay: the message decrypted and authenticated.
type DecryptionOkay struct{}

// DecryptionFailed: it did not.
type DecryptionFailed struct{}

// GoodMDC: the MDC checked.
type GoodMDC struct{}

// BadMDC: the integrity check failed.
type BadMDC struct{}

// Plaintext is the literal packet's header: format (two hex digits),
// time and file name.
type Plaintext struct {
	Format string
	Time   int64
	Name   string
}

// PlaintextLength is the literal data's length, when the packet says.
type PlaintextLength struct{ Length int64 }

// SessionKey is --show-session-key's key, "ALGO:HEX".
type SessionKey struct{ Key string }

// NoData: nothing OpenPGP was found (What: 1 no armored data, ...).
type NoData struct{ What int }

// --- Encryption and signing ---

// BeginEncryption: MDC method, cipher, and for AEAD formats the AEAD
// algorithm.
type BeginEncryption struct {
	MDC    int
	Cipher int
	AEAD   int `status:"omitempty"`
}

// EndEncryption ends an encryption.
type EndEncryption struct{}

// BeginSigning lists the hashes ("H8 H10").
type BeginSigning struct{ Hashes Text }

// SigCreated: a signature was made.
type SigCreated struct {
	Kind    string // D detached, C cleartext, S standard
	PubAlgo int
	Hash    int
	Class   string
	Time    int64
	Fpr     string
}

// --- Passphrases and questions ---

// UserIDHint names the key a passphrase is asked for.
type UserIDHint struct {
	KeyID  string
	UserID Text
}

// NeedPassphrase: a passphrase for KeyID (of MainKeyID) is asked.
type NeedPassphrase struct {
	KeyID     string
	MainKeyID string
	PubAlgo   int
	KeyLen    int
}

// NeedPassphraseSym: a passphrase for a symmetric key is asked.
type NeedPassphraseSym struct {
	Cipher int
	S2K    int
	Hash   int
}

// GetBool asks a yes/no question on the command fd.
type GetBool struct{ Key string }

// GetLine asks for a line on the command fd.
type GetLine struct{ Key string }

// GetHidden asks for a secret on the command fd.
type GetHidden struct{ Key string }

// Question is a GET_BOOL, GET_LINE or GET_HIDDEN line; Name is the
// question's key ("untrusted_key.override").
type Question interface {
	Line
	Name() string
}

func (q GetBool) Name() string   { return q.Key }
func (q GetLine) Name() string   { return q.Key }
func (q GetHidden) Name() string { return q.Key }

// GotIt acknowledges an answer.
type GotIt struct{}

// InquireMaxLen bounds the next answer.
type InquireMaxLen struct{ Max int }

// --- Keys ---

// Imported: a key was imported (gpg's long key ID and user ID).
type Imported struct {
	KeyID  string
	UserID Text
}

// ImportOK: what importing did to one key.
type ImportOK struct {
	Reason int
	Fpr    string
}

// ImportRes sums up an import, gpg's 15 counts in order.
type ImportRes struct {
	Count, NoUserID, Imported, ImportedRSA, Unchanged, NUIDs, NSubkeys,
	NSigs, NRevoked, SecRead, SecImported, SecDups, SkippedNewKeys,
	NotImported, SkippedV3Keys int
}

// KeyCreated: Kind B (primary and subkey), P (primary), S (subkey).
type KeyCreated struct {
	Kind   string
	Fpr    string
	Handle string `status:"omitempty"`
}

// AlreadySigned: the user ID was certified by KeyID already, and is not
// certified again.
type AlreadySigned struct{ KeyID string }

// DeleteProblem: a key was not deleted; Reason 1 no such key, 2 its
// secret part must be deleted first.
type DeleteProblem struct{ Reason int }

// KeyNotCreated: a parameter file's key was not made.
type KeyNotCreated struct {
	Handle string `status:"omitempty"`
}

// --- Progress and results ---

// Progress: What (a file name or operation), "?" , done and total in
// Units.
type Progress struct {
	What  string
	Char  string
	Cur   int64
	Total int64
	Units string
}

// Success: an operation succeeded.
type Success struct {
	Location string `status:"omitempty"`
}

// Failure: an operation failed; gpg-exit for a bad signature's exit 1.
type Failure struct {
	Location string
	Code     int
}

// Error: a recoverable error at Location.
type Error struct {
	Location string
	Code     string
}

func (NewSig) Keyword() string            { return "NEWSIG" }
func (GoodSig) Keyword() string           { return "GOODSIG" }
func (ExpSig) Keyword() string            { return "EXPSIG" }
func (ExpKeySig) Keyword() string         { return "EXPKEYSIG" }
func (RevKeySig) Keyword() string         { return "REVKEYSIG" }
func (BadSig) Keyword() string            { return "BADSIG" }
func (ErrSig) Keyword() string            { return "ERRSIG" }
func (ValidSig) Keyword() string          { return "VALIDSIG" }
func (SigID) Keyword() string             { return "SIG_ID" }
func (KeyRevoked) Keyword() string        { return "KEYREVOKED" }
func (KeyExpired) Keyword() string        { return "KEYEXPIRED" }
func (NoPubkey) Keyword() string          { return "NO_PUBKEY" }
func (t Trust) Keyword() string           { return trustKeywords[t.Level] }
func (KeyConsidered) Keyword() string     { return "KEY_CONSIDERED" }
func (TofuUser) Keyword() string          { return "TOFU_USER" }
func (TofuStats) Keyword() string         { return "TOFU_STATS" }
func (TofuStatsLong) Keyword() string     { return "TOFU_STATS_LONG" }
func (InvRecp) Keyword() string           { return "INV_RECP" }
func (InvSgnr) Keyword() string           { return "INV_SGNR" }
func (NoSeckey) Keyword() string          { return "NO_SECKEY" }
func (EncTo) Keyword() string             { return "ENC_TO" }
func (BeginDecryption) Keyword() string   { return "BEGIN_DECRYPTION" }
func (EndDecryption) Keyword() string     { return "END_DECRYPTION" }
func (DecryptionKey) Keyword() string     { return "DECRYPTION_KEY" }
func (DecryptionInfo) Keyword() string    { return "DECRYPTION_INFO" }
func (DecryptionOkay) Keyword() string    { return "DECRYPTION_OKAY" }
func (DecryptionFailed) Keyword() string  { return "DECRYPTION_FAILED" }
func (GoodMDC) Keyword() string           { return "GOODMDC" }
func (BadMDC) Keyword() string            { return "BADMDC" }
func (Plaintext) Keyword() string         { return "PLAINTEXT" }
func (PlaintextLength) Keyword() string   { return "PLAINTEXT_LENGTH" }
func (SessionKey) Keyword() string        { return "SESSION_KEY" }
func (NoData) Keyword() string            { return "NODATA" }
func (BeginEncryption) Keyword() string   { return "BEGIN_ENCRYPTION" }
func (EndEncryption) Keyword() string     { return "END_ENCRYPTION" }
func (BeginSigning) Keyword() string      { return "BEGIN_SIGNING" }
func (SigCreated) Keyword() string        { return "SIG_CREATED" }
func (UserIDHint) Keyword() string        { return "USERID_HINT" }
func (NeedPassphrase) Keyword() string    { return "NEED_PASSPHRASE" }
func (NeedPassphraseSym) Keyword() string { return "NEED_PASSPHRASE_SYM" }
func (GetBool) Keyword() string           { return "GET_BOOL" }
func (GetLine) Keyword() string           { return "GET_LINE" }
func (GetHidden) Keyword() string         { return "GET_HIDDEN" }
func (GotIt) Keyword() string             { return "GOT_IT" }
func (InquireMaxLen) Keyword() string     { return "INQUIRE_MAXLEN" }
func (Imported) Keyword() string          { return "IMPORTED" }
func (ImportOK) Keyword() string          { return "IMPORT_OK" }
func (ImportRes) Keyword() string         { return "IMPORT_RES" }
func (KeyCreated) Keyword() string        { return "KEY_CREATED" }
func (KeyNotCreated) Keyword() string     { return "KEY_NOT_CREATED" }
func (DeleteProblem) Keyword() string     { return "DELETE_PROBLEM" }
func (AlreadySigned) Keyword() string     { return "ALREADY_SIGNED" }
func (Progress) Keyword() string          { return "PROGRESS" }
func (Success) Keyword() string           { return "SUCCESS" }
func (Failure) Keyword() string           { return "FAILURE" }
func (Error) Keyword() string             { return "ERROR" }

// NotationName: a good signature carries the notation NAME; its
// NOTATION_FLAGS and NOTATION_DATA lines follow.
type NotationName struct {
	Name string
}

// NotationFlags: the notation's critical bit and human-readable flag
// (gpg writes it only when either is set).
type NotationFlags struct {
	Critical, Human int
}

// NotationData: a piece of the notation's value, at most 50 bytes of a
// human-readable one (250 of one that is not) per line, as gpg wraps it.
type NotationData struct {
	Data string
}

// PolicyURL: a good signature's policy URL subpacket.
type PolicyURL struct {
	URL string
}

func (NotationName) Keyword() string  { return "NOTATION_NAME" }
func (NotationFlags) Keyword() string { return "NOTATION_FLAGS" }
func (NotationData) Keyword() string  { return "NOTATION_DATA" }
func (PolicyURL) Keyword() string     { return "POLICY_URL" }

// All is one value of every line type, for the tests that hold each
// keyword to the rendering rules.
var All = []Line{
	NewSig{}, GoodSig{}, ExpSig{}, ExpKeySig{}, RevKeySig{}, BadSig{}, ErrSig{},
	ValidSig{}, SigID{}, KeyRevoked{}, KeyExpired{}, NoPubkey{},
	Trust{Level: TrustUndefined}, Trust{Level: TrustNever}, Trust{Level: TrustMarginal},
	Trust{Level: TrustFully}, Trust{Level: TrustUltimate}, TofuUser{}, TofuStats{}, TofuStatsLong{},
	KeyConsidered{}, InvRecp{}, InvSgnr{}, NoSeckey{}, EncTo{}, BeginDecryption{},
	EndDecryption{}, DecryptionKey{}, DecryptionInfo{}, DecryptionOkay{},
	DecryptionFailed{}, GoodMDC{}, BadMDC{}, Plaintext{}, PlaintextLength{},
	SessionKey{}, NoData{}, BeginEncryption{}, EndEncryption{}, BeginSigning{},
	SigCreated{}, UserIDHint{}, NeedPassphrase{}, NeedPassphraseSym{}, GetBool{},
	GetLine{}, GetHidden{}, GotIt{}, InquireMaxLen{}, Imported{}, ImportOK{},
	ImportRes{}, KeyCreated{}, KeyNotCreated{}, Progress{}, Success{}, Failure{},
	Error{}, AlreadySigned{}, DeleteProblem{}, NotationName{}, NotationFlags{}, NotationData{},
	PolicyURL{},
}
