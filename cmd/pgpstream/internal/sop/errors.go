package sop

import (
	"errors"
	"fmt"
)

// Code is a sop exit code: the draft's table of failure classes, so that
// a caller such as the OpenPGP interoperability test suite can tell what
// went wrong without reading the message.
type Code int

// The draft's codes (draft-dkg-openpgp-stateless-cli-16, "Failure Modes").
// 97 and 101 concern hardware keys and 103, 107 and 109 the subcommands
// update-key, certify-userid and validate-userid, none of which pgpstream
// has; they are listed so every code has its name.
const (
	codeOK                       Code = 0
	codeUnspecificFailure        Code = 1
	codeNoSignature              Code = 3
	codeUnsupportedAsymmetric    Code = 13
	codeCertCannotEncrypt        Code = 17
	codeMissingArg               Code = 19
	codeIncompleteVerification   Code = 23
	codeCannotDecrypt            Code = 29
	codePasswordNotHumanReadable Code = 31
	codeUnsupportedOption        Code = 37
	codeBadData                  Code = 41
	codeExpectedText             Code = 53
	codeOutputExists             Code = 59
	codeMissingInput             Code = 61
	codeKeyIsProtected           Code = 67
	codeUnsupportedSubcommand    Code = 69
	codeUnsupportedSpecialPrefix Code = 71
	codeAmbiguousInput           Code = 73
	codeKeyCannotSign            Code = 79
	codeIncompatibleOptions      Code = 83
	codeUnsupportedProfile       Code = 89
	codeNoHardwareKeyFound       Code = 97
	codeHardwareKeyFailure       Code = 101
	codePrimaryKeyBad            Code = 103
	codeCertUserIDNoMatch        Code = 107
	codeKeyCannotCertify         Code = 109
)

var codeNames = map[Code]string{
	codeUnspecificFailure:        "UNSPECIFIC_FAILURE",
	codeNoSignature:              "NO_SIGNATURE",
	codeUnsupportedAsymmetric:    "UNSUPPORTED_ASYMMETRIC_ALGO",
	codeCertCannotEncrypt:        "CERT_CANNOT_ENCRYPT",
	codeMissingArg:               "MISSING_ARG",
	codeIncompleteVerification:   "INCOMPLETE_VERIFICATION",
	codeCannotDecrypt:            "CANNOT_DECRYPT",
	codePasswordNotHumanReadable: "PASSWORD_NOT_HUMAN_READABLE",
	codeUnsupportedOption:        "UNSUPPORTED_OPTION",
	codeBadData:                  "BAD_DATA",
	codeExpectedText:             "EXPECTED_TEXT",
	codeOutputExists:             "OUTPUT_EXISTS",
	codeMissingInput:             "MISSING_INPUT",
	codeKeyIsProtected:           "KEY_IS_PROTECTED",
	codeUnsupportedSubcommand:    "UNSUPPORTED_SUBCOMMAND",
	codeUnsupportedSpecialPrefix: "UNSUPPORTED_SPECIAL_PREFIX",
	codeAmbiguousInput:           "AMBIGUOUS_INPUT",
	codeKeyCannotSign:            "KEY_CANNOT_SIGN",
	codeIncompatibleOptions:      "INCOMPATIBLE_OPTIONS",
	codeUnsupportedProfile:       "UNSUPPORTED_PROFILE",
	codeNoHardwareKeyFound:       "NO_HARDWARE_KEY_FOUND",
	codeHardwareKeyFailure:       "HARDWARE_KEY_FAILURE",
	codePrimaryKeyBad:            "PRIMARY_KEY_BAD",
	codeCertUserIDNoMatch:        "CERT_USERID_NO_MATCH",
	codeKeyCannotCertify:         "KEY_CANNOT_CERTIFY",
}

func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("code %d", int(c))
}

// Error is a failure with the code it exits with.
type Error struct {
	Code Code
	Msg  string
	Err  error // the library's error behind it, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// fail is a failure of class code.
func fail(code Code, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// failWith is a failure of class code caused by err.
func failWith(code Code, err error, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// codeOf is the exit code of err: its Error's, or UNSPECIFIC_FAILURE for
// an error no check classified (a write to a closed pipe, say).
func codeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return codeUnspecificFailure
}
