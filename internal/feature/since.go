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

// featureSince is the release that added each feature bit.
var featureSince = map[sys.Features]string{
	sys.FeatSingleMmap: "5.4", sys.FeatNoDrop: "5.5", sys.FeatSubmitStable: "5.5",
	sys.FeatRWCurPos: "5.6", sys.FeatCurPersonality: "5.6", sys.FeatFastPoll: "5.7",
	sys.FeatPoll32Bits: "5.9", sys.FeatSQPollNonfixed: "5.11", sys.FeatExtArg: "5.11",
	sys.FeatNativeWorkers: "5.12", sys.FeatRsrcTags: "5.13", sys.FeatCQESkip: "5.17",
	sys.FeatLinkedFile: "5.17", sys.FeatRegRegRing: "6.3", sys.FeatRecvSendBundle: "6.10",
	sys.FeatMinTimeout: "6.12", sys.FeatRWAttr: "6.14", sys.FeatNoIOWait: "6.15",
}

// FeatureSince returns the release that added a feature bit, or "".
func FeatureSince(f sys.Features) string { return featureSince[f] }

// missingFeature answers Feature(f) for a kernel that reports have.
func missingFeature(f, have sys.Features) error {
	miss := f &^ have
	if miss == 0 {
		return nil
	}
	bit := miss & -miss
	return unsupported(featureBitFeature(bit), FeatureSince(bit), "the kernel does not report it", nil)
}
