package feature

import (
	"strconv"
	"strings"

	"github.com/pure-uring/uring/sys"
)

// The C names of what the probes answer about, as the kernel's headers and
// the man pages spell them, so that a message can be grepped.

// OpName returns "IORING_OP_READ", or the number for an opcode this
// package does not know.
func OpName(op sys.Op) string {
	if op < sys.OpLast {
		return "IORING_OP_" + op.String()
	}
	return strconv.Itoa(int(op))
}

// SetupFlagName returns "IORING_SETUP_SQPOLL" (flags joined by "|"),
// unknown bits in hex.
func SetupFlagName(f sys.SetupFlags) string { return prefixed("IORING_SETUP_", f.String()) }

// EnterFlagName returns "IORING_ENTER_GETEVENTS" (flags joined by "|"),
// unknown bits in hex.
func EnterFlagName(f sys.EnterFlags) string { return prefixed("IORING_ENTER_", f.String()) }

// FeatureName returns "IORING_FEAT_SINGLE_MMAP" (bits joined by "|"),
// unknown bits in hex.
func FeatureName(f sys.Features) string { return prefixed("IORING_FEAT_", f.String()) }

// RegisterOpName returns "IORING_REGISTER_FILES" or
// "IORING_UNREGISTER_FILES", with "|IORING_REGISTER_USE_REGISTERED_RING"
// when that bit is set, or the number for an opcode this package does not
// know.
func RegisterOpName(op sys.RegisterOp) string {
	if op == sys.RegisterUseRegisteredRing {
		return "IORING_REGISTER_USE_REGISTERED_RING"
	}
	base := op &^ sys.RegisterUseRegisteredRing
	s := strconv.Itoa(int(base))
	if base < sys.RegisterOpLast {
		s = "IORING_" + base.String()
	}
	if base != op {
		s += "|IORING_REGISTER_USE_REGISTERED_RING"
	}
	return s
}

// prefixed puts prefix before each name of a "|"-joined list, leaving hex
// (unknown) bits and "0" bare.
func prefixed(prefix, names string) string {
	parts := strings.Split(names, "|")
	for i, p := range parts {
		if p != "" && !strings.HasPrefix(p, "0x") && p != "0" {
			parts[i] = prefix + p
		}
	}
	return strings.Join(parts, "|")
}

// The Feature texts of UnsupportedError for each kind of probe.
func opFeature(op sys.Op) string               { return "opcode " + OpName(op) }
func setupFeature(f sys.SetupFlags) string     { return "setup flag " + SetupFlagName(f) }
func enterFeature(f sys.EnterFlags) string     { return "enter flag " + EnterFlagName(f) }
func registerFeature(op sys.RegisterOp) string { return "register opcode " + RegisterOpName(op) }
func featureBitFeature(f sys.Features) string  { return "feature " + FeatureName(f) }
