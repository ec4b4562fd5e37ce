package feature

import "github.com/pure-uring/uring/sys"

// enterSince is the release that added each enter flag.
var enterSince = map[sys.EnterFlags]string{
	sys.EnterGetEvents: "5.1", sys.EnterSQWakeup: "5.1", sys.EnterSQWait: "5.10",
	sys.EnterExtArg: "5.11", sys.EnterRegisteredRing: "5.18", sys.EnterAbsTimer: "6.12",
	sys.EnterExtArgReg: "6.13", sys.EnterNoIOWait: "6.15",
}

// EnterFlagSince returns the release that added an enter flag, or "".
func EnterFlagSince(f sys.EnterFlags) string { return enterSince[f] }
