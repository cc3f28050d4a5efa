package main

import "strconv"

// command is what an invocation does: one value for each command entry
// of the option table (kCommand, not an alias), so a misspelt command is
// a compile error rather than a case that never matches. The names are
// the table's: an entry carries its constant (optDef.cmd), and init
// records its long name for String, so there is one list.
type command uint8

// The commands, one for each command entry of the option table.
const (
	commandNone command = iota // no command given
	commandEncrypt
	commandSymmetric
	commandDecrypt
	commandSign
	commandDetachSign
	commandVerify
	commandImport
	commandListKeys
	commandFingerprint
	commandListSigs
	commandCheckSigs
	commandShowKeys
	commandListPackets
	commandClearSign
	commandStore
	commandDearmor
	commandEnarmor
	commandListSecretKeys
	commandExport
	commandExportSecretKeys
	commandExportSecretSubkeys
	commandQuickGenKey
	commandDeleteKeys
	commandDeleteSecretKeys
	commandDeleteSecretAndPublicKey
	commandVersion
	commandListConfig
	commandGpgconfTest
	commandDumpOptions
	commandGenKey
	commandPrintMD
	commandPrintMDs
	commandGenRandom
	commandImportOwnertrust
	commandExportOwnertrust
	commandQuickSetOwnertrust
	commandCheckTrustDB
	commandTOFUPolicy
	commandUpdateTrustDB
	commandEditKey
	commandSignKey
	commandLsignKey
	commandQuickSignKey
	commandQuickLsignKey
	commandDumpOptionTable
	commandGpgconfList
	commandHelp
	commandQuickSetExpire
	commandQuickAddKey
	commandQuickAddUID
	commandQuickRevokeUID
	commandQuickSetPrimaryUID
	commandGenerateRevocation
	commandExportSSHKey
	commandPasswd
	commandRecvKeys
	commandSearchKeys
	commandSendKeys
	commandRefreshKeys
	commandLocateKeys
	commandLocateExternalKeys
	commandPrintManpage
	commandPrintCompletion
	numCommands
)

// commandNames are the long names of the commands, from the option table
// (see init in options.go).
var commandNames [numCommands]string

// String is the command's long option name, as gpg spells it (without
// the "--"); "" for commandNone.
func (c command) String() string {
	if c < numCommands {
		return commandNames[c]
	}
	return "command(" + strconv.Itoa(int(c)) + ")"
}
