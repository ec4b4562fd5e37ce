package sys

import "strconv"

// SQEFlags are the IOSQE_* flags of an SQE.
type SQEFlags uint8

const (
	SQEFixedFile      SQEFlags = 1 << 0 // IOSQE_FIXED_FILE [5.1]
	SQEIODrain        SQEFlags = 1 << 1 // IOSQE_IO_DRAIN [5.2]
	SQEIOLink         SQEFlags = 1 << 2 // IOSQE_IO_LINK [5.3]
	SQEIOHardlink     SQEFlags = 1 << 3 // IOSQE_IO_HARDLINK [5.5]
	SQEAsync          SQEFlags = 1 << 4 // IOSQE_ASYNC [5.6]
	SQEBufferSelect   SQEFlags = 1 << 5 // IOSQE_BUFFER_SELECT [5.7]
	SQECQESkipSuccess SQEFlags = 1 << 6 // IOSQE_CQE_SKIP_SUCCESS [5.17]
)

// Bit numbers of the SQE flags (enum io_uring_sqe_flags_bit): flag = 1 << bit.
const (
	SQEFixedFileBit      = 0 // IOSQE_FIXED_FILE_BIT [5.1]
	SQEIODrainBit        = 1 // IOSQE_IO_DRAIN_BIT [5.2]
	SQEIOLinkBit         = 2 // IOSQE_IO_LINK_BIT [5.3]
	SQEIOHardlinkBit     = 3 // IOSQE_IO_HARDLINK_BIT [5.5]
	SQEAsyncBit          = 4 // IOSQE_ASYNC_BIT [5.6]
	SQEBufferSelectBit   = 5 // IOSQE_BUFFER_SELECT_BIT [5.7]
	SQECQESkipSuccessBit = 6 // IOSQE_CQE_SKIP_SUCCESS_BIT [5.17]
)

var sqeFlagNames = []bitName{
	{uint64(SQEFixedFile), "FIXED_FILE"}, {uint64(SQEIODrain), "IO_DRAIN"},
	{uint64(SQEIOLink), "IO_LINK"}, {uint64(SQEIOHardlink), "IO_HARDLINK"},
	{uint64(SQEAsync), "ASYNC"}, {uint64(SQEBufferSelect), "BUFFER_SELECT"},
	{uint64(SQECQESkipSuccess), "CQE_SKIP_SUCCESS"},
}

func (f SQEFlags) String() string { return formatBits(uint64(f), sqeFlagNames) }

// SetupFlags are the IORING_SETUP_* flags of io_uring_setup(2).
type SetupFlags uint32

const (
	SetupIOPoll           SetupFlags = 1 << 0  // IORING_SETUP_IOPOLL [5.1]
	SetupSQPoll           SetupFlags = 1 << 1  // IORING_SETUP_SQPOLL [5.1]
	SetupSQAff            SetupFlags = 1 << 2  // IORING_SETUP_SQ_AFF [5.1]
	SetupCQSize           SetupFlags = 1 << 3  // IORING_SETUP_CQSIZE [5.5]
	SetupClamp            SetupFlags = 1 << 4  // IORING_SETUP_CLAMP [5.6]
	SetupAttachWQ         SetupFlags = 1 << 5  // IORING_SETUP_ATTACH_WQ [5.6]
	SetupRDisabled        SetupFlags = 1 << 6  // IORING_SETUP_R_DISABLED [5.10]
	SetupSubmitAll        SetupFlags = 1 << 7  // IORING_SETUP_SUBMIT_ALL [5.18]
	SetupCoopTaskrun      SetupFlags = 1 << 8  // IORING_SETUP_COOP_TASKRUN [5.19]
	SetupTaskrunFlag      SetupFlags = 1 << 9  // IORING_SETUP_TASKRUN_FLAG [5.19]
	SetupSQE128           SetupFlags = 1 << 10 // IORING_SETUP_SQE128 [5.19]
	SetupCQE32            SetupFlags = 1 << 11 // IORING_SETUP_CQE32 [5.19]
	SetupSingleIssuer     SetupFlags = 1 << 12 // IORING_SETUP_SINGLE_ISSUER [6.0]
	SetupDeferTaskrun     SetupFlags = 1 << 13 // IORING_SETUP_DEFER_TASKRUN [6.1]
	SetupNoMmap           SetupFlags = 1 << 14 // IORING_SETUP_NO_MMAP [6.5]
	SetupRegisteredFdOnly SetupFlags = 1 << 15 // IORING_SETUP_REGISTERED_FD_ONLY [6.5]
	SetupNoSQArray        SetupFlags = 1 << 16 // IORING_SETUP_NO_SQARRAY [6.6]
	SetupHybridIOPoll     SetupFlags = 1 << 17 // IORING_SETUP_HYBRID_IOPOLL [6.13]
	SetupCQEMixed         SetupFlags = 1 << 18 // IORING_SETUP_CQE_MIXED [6.18]
	SetupSQEMixed         SetupFlags = 1 << 19 // IORING_SETUP_SQE_MIXED [6.19]
	SetupSQRewind         SetupFlags = 1 << 20 // IORING_SETUP_SQ_REWIND [7.0]
)

// SetupFlagList lists every setup flag this package knows, lowest bit first.
var SetupFlagList = []SetupFlags{
	SetupIOPoll, SetupSQPoll, SetupSQAff, SetupCQSize, SetupClamp, SetupAttachWQ,
	SetupRDisabled, SetupSubmitAll, SetupCoopTaskrun, SetupTaskrunFlag,
	SetupSQE128, SetupCQE32, SetupSingleIssuer, SetupDeferTaskrun, SetupNoMmap,
	SetupRegisteredFdOnly, SetupNoSQArray, SetupHybridIOPoll, SetupCQEMixed,
	SetupSQEMixed, SetupSQRewind,
}

var setupFlagNames = []bitName{
	{1 << 0, "IOPOLL"}, {1 << 1, "SQPOLL"}, {1 << 2, "SQ_AFF"}, {1 << 3, "CQSIZE"},
	{1 << 4, "CLAMP"}, {1 << 5, "ATTACH_WQ"}, {1 << 6, "R_DISABLED"},
	{1 << 7, "SUBMIT_ALL"}, {1 << 8, "COOP_TASKRUN"}, {1 << 9, "TASKRUN_FLAG"},
	{1 << 10, "SQE128"}, {1 << 11, "CQE32"}, {1 << 12, "SINGLE_ISSUER"},
	{1 << 13, "DEFER_TASKRUN"}, {1 << 14, "NO_MMAP"},
	{1 << 15, "REGISTERED_FD_ONLY"}, {1 << 16, "NO_SQARRAY"},
	{1 << 17, "HYBRID_IOPOLL"}, {1 << 18, "CQE_MIXED"}, {1 << 19, "SQE_MIXED"},
	{1 << 20, "SQ_REWIND"},
}

var setupFlagSince = map[SetupFlags]string{
	SetupIOPoll: "5.1", SetupSQPoll: "5.1", SetupSQAff: "5.1", SetupCQSize: "5.5",
	SetupClamp: "5.6", SetupAttachWQ: "5.6", SetupRDisabled: "5.10",
	SetupSubmitAll: "5.18", SetupCoopTaskrun: "5.19", SetupTaskrunFlag: "5.19",
	SetupSQE128: "5.19", SetupCQE32: "5.19", SetupSingleIssuer: "6.0",
	SetupDeferTaskrun: "6.1", SetupNoMmap: "6.5", SetupRegisteredFdOnly: "6.5",
	SetupNoSQArray: "6.6", SetupHybridIOPoll: "6.13", SetupCQEMixed: "6.18",
	SetupSQEMixed: "6.19", SetupSQRewind: "7.0",
}

func (f SetupFlags) String() string { return formatBits(uint64(f), setupFlagNames) }

// Since returns the Linux release that added a single setup flag, or "".
func (f SetupFlags) Since() string { return setupFlagSince[f] }

// EnterFlags are the IORING_ENTER_* flags of io_uring_enter(2).
type EnterFlags uint32

const (
	EnterGetEvents      EnterFlags = 1 << 0 // IORING_ENTER_GETEVENTS [5.1]
	EnterSQWakeup       EnterFlags = 1 << 1 // IORING_ENTER_SQ_WAKEUP [5.1]
	EnterSQWait         EnterFlags = 1 << 2 // IORING_ENTER_SQ_WAIT [5.10]
	EnterExtArg         EnterFlags = 1 << 3 // IORING_ENTER_EXT_ARG [5.11]
	EnterRegisteredRing EnterFlags = 1 << 4 // IORING_ENTER_REGISTERED_RING [5.18]
	EnterAbsTimer       EnterFlags = 1 << 5 // IORING_ENTER_ABS_TIMER [6.12]
	EnterExtArgReg      EnterFlags = 1 << 6 // IORING_ENTER_EXT_ARG_REG [6.13]
	EnterNoIOWait       EnterFlags = 1 << 7 // IORING_ENTER_NO_IOWAIT [6.15]
)

var enterFlagNames = []bitName{
	{1 << 0, "GETEVENTS"}, {1 << 1, "SQ_WAKEUP"}, {1 << 2, "SQ_WAIT"},
	{1 << 3, "EXT_ARG"}, {1 << 4, "REGISTERED_RING"}, {1 << 5, "ABS_TIMER"},
	{1 << 6, "EXT_ARG_REG"}, {1 << 7, "NO_IOWAIT"},
}

func (f EnterFlags) String() string { return formatBits(uint64(f), enterFlagNames) }

// Features are the IORING_FEAT_* bits the kernel reports in Params.Features.
type Features uint32

const (
	FeatSingleMmap     Features = 1 << 0  // IORING_FEAT_SINGLE_MMAP [5.4]
	FeatNoDrop         Features = 1 << 1  // IORING_FEAT_NODROP [5.5]
	FeatSubmitStable   Features = 1 << 2  // IORING_FEAT_SUBMIT_STABLE [5.5]
	FeatRWCurPos       Features = 1 << 3  // IORING_FEAT_RW_CUR_POS [5.6]
	FeatCurPersonality Features = 1 << 4  // IORING_FEAT_CUR_PERSONALITY [5.6]
	FeatFastPoll       Features = 1 << 5  // IORING_FEAT_FAST_POLL [5.7]
	FeatPoll32Bits     Features = 1 << 6  // IORING_FEAT_POLL_32BITS [5.9]
	FeatSQPollNonfixed Features = 1 << 7  // IORING_FEAT_SQPOLL_NONFIXED [5.11]
	FeatExtArg         Features = 1 << 8  // IORING_FEAT_EXT_ARG [5.11]
	FeatNativeWorkers  Features = 1 << 9  // IORING_FEAT_NATIVE_WORKERS [5.12]
	FeatRsrcTags       Features = 1 << 10 // IORING_FEAT_RSRC_TAGS [5.13]
	FeatCQESkip        Features = 1 << 11 // IORING_FEAT_CQE_SKIP [5.17]
	FeatLinkedFile     Features = 1 << 12 // IORING_FEAT_LINKED_FILE [5.17]
	FeatRegRegRing     Features = 1 << 13 // IORING_FEAT_REG_REG_RING [6.3]
	FeatRecvSendBundle Features = 1 << 14 // IORING_FEAT_RECVSEND_BUNDLE [6.10]
	FeatMinTimeout     Features = 1 << 15 // IORING_FEAT_MIN_TIMEOUT [6.12]
	FeatRWAttr         Features = 1 << 16 // IORING_FEAT_RW_ATTR [6.14]
	FeatNoIOWait       Features = 1 << 17 // IORING_FEAT_NO_IOWAIT [6.15]
)

var featureNames = []bitName{
	{1 << 0, "SINGLE_MMAP"}, {1 << 1, "NODROP"}, {1 << 2, "SUBMIT_STABLE"},
	{1 << 3, "RW_CUR_POS"}, {1 << 4, "CUR_PERSONALITY"}, {1 << 5, "FAST_POLL"},
	{1 << 6, "POLL_32BITS"}, {1 << 7, "SQPOLL_NONFIXED"}, {1 << 8, "EXT_ARG"},
	{1 << 9, "NATIVE_WORKERS"}, {1 << 10, "RSRC_TAGS"}, {1 << 11, "CQE_SKIP"},
	{1 << 12, "LINKED_FILE"}, {1 << 13, "REG_REG_RING"},
	{1 << 14, "RECVSEND_BUNDLE"}, {1 << 15, "MIN_TIMEOUT"}, {1 << 16, "RW_ATTR"},
	{1 << 17, "NO_IOWAIT"},
}

// FeatureList lists every feature bit this package knows, lowest first.
var FeatureList = func() []Features {
	l := make([]Features, len(featureNames))
	for i, n := range featureNames {
		l[i] = Features(n.bit)
	}
	return l
}()

func (f Features) String() string { return formatBits(uint64(f), featureNames) }

// SQRingFlags are the IORING_SQ_* bits of the SQ ring's flags word.
type SQRingFlags uint32

const (
	SQNeedWakeup SQRingFlags = 1 << 0 // IORING_SQ_NEED_WAKEUP [5.1]
	SQCQOverflow SQRingFlags = 1 << 1 // IORING_SQ_CQ_OVERFLOW [5.8]
	SQTaskrun    SQRingFlags = 1 << 2 // IORING_SQ_TASKRUN [5.19]
)

var sqRingFlagNames = []bitName{{1, "NEED_WAKEUP"}, {2, "CQ_OVERFLOW"}, {4, "TASKRUN"}}

func (f SQRingFlags) String() string { return formatBits(uint64(f), sqRingFlagNames) }

// CQRingFlags are the IORING_CQ_* bits of the CQ ring's flags word.
type CQRingFlags uint32

const (
	CQEventfdDisabled CQRingFlags = 1 << 0 // IORING_CQ_EVENTFD_DISABLED [5.8]
)

func (f CQRingFlags) String() string {
	return formatBits(uint64(f), []bitName{{1, "EVENTFD_DISABLED"}})
}

// CQEFlags are the IORING_CQE_F_* bits of a CQE.
type CQEFlags uint32

const (
	CQEFBuffer       CQEFlags = 1 << 0  // IORING_CQE_F_BUFFER [5.7]
	CQEFMore         CQEFlags = 1 << 1  // IORING_CQE_F_MORE [5.13]
	CQEFSockNonempty CQEFlags = 1 << 2  // IORING_CQE_F_SOCK_NONEMPTY [5.19]
	CQEFNotif        CQEFlags = 1 << 3  // IORING_CQE_F_NOTIF [6.0]
	CQEFBufMore      CQEFlags = 1 << 4  // IORING_CQE_F_BUF_MORE [6.12]
	CQEFSkip         CQEFlags = 1 << 5  // IORING_CQE_F_SKIP [6.18]
	CQEF32           CQEFlags = 1 << 15 // IORING_CQE_F_32 [6.18]
	// CQEFTstampHW is set on a SOCKET_URING_OP_TX_TIMESTAMP CQE when the
	// timestamp is the hardware's; the type is in the bits from
	// TimestampTypeShift.
	CQEFTstampHW CQEFlags = 1 << TimestampHWShift // IORING_CQE_F_TSTAMP_HW [6.16]

	// CQEBufferShift is where the buffer id starts in the flags word.
	CQEBufferShift = 16 // IORING_CQE_BUFFER_SHIFT
)

var cqeFlagNames = []bitName{
	{1 << 0, "BUFFER"}, {1 << 1, "MORE"}, {1 << 2, "SOCK_NONEMPTY"},
	{1 << 3, "NOTIF"}, {1 << 4, "BUF_MORE"}, {1 << 5, "SKIP"}, {1 << 15, "32"},
}

// String names the flag bits; with F_BUFFER set it appends the buffer id.
func (f CQEFlags) String() string {
	low := uint64(f) & 0xffff
	s := formatBits(low, cqeFlagNames)
	if f&CQEFBuffer != 0 {
		s += "|bid=" + strconv.Itoa(int(f>>CQEBufferShift))
	} else if f>>CQEBufferShift != 0 {
		s = formatBits(uint64(f), cqeFlagNames)
	}
	return s
}
