package sys

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOpNames(t *testing.T) {
	require.Len(t, opNames, int(OpLast), "one name per opcode")
	require.Len(t, opSince, int(OpLast), "one release per opcode")
	for _, c := range []struct {
		op          Op
		name, since string
	}{
		{OpNop, "NOP", "5.1"},
		{OpSyncFileRange, "SYNC_FILE_RANGE", "5.2"},
		{OpRead, "READ", "5.6"},
		{OpMsgRing, "MSG_RING", "5.18"},
		{OpUringCmd, "URING_CMD", "5.19"},
		{OpFixedFdInstall, "FIXED_FD_INSTALL", "6.8"},
		{OpPipe, "PIPE", "6.16"},
		{OpNop128, "NOP128", "6.19"},
		{OpUringCmd128, "URING_CMD128", "6.19"},
		{OpLast, "OP_65", ""},
		{Op(255), "OP_255", ""},
	} {
		require.Equal(t, c.name, c.op.String(), "Op(%d).String()", uint8(c.op))
		require.Equal(t, c.since, c.op.Since(), "Op(%d).Since()", uint8(c.op))
	}
	// The opcode values are the enum order of io_uring_op.
	require.Equal(t, Op(22), OpRead)
	require.Equal(t, Op(46), OpUringCmd)
	require.Equal(t, Op(62), OpPipe)
}

func TestSQEFlagsString(t *testing.T) {
	require.Equal(t, "0", SQEFlags(0).String())
	require.Equal(t, "FIXED_FILE", SQEFixedFile.String())
	require.Equal(t, "IO_LINK|CQE_SKIP_SUCCESS", (SQEIOLink | SQECQESkipSuccess).String())
	require.Equal(t, "ASYNC|0x80", (SQEAsync | 0x80).String())
}

func TestSetupFlags(t *testing.T) {
	require.Equal(t, "0", SetupFlags(0).String())
	require.Equal(t, "SQPOLL|SQ_AFF", (SetupSQPoll | SetupSQAff).String())
	require.Equal(t, "SINGLE_ISSUER|DEFER_TASKRUN", (SetupSingleIssuer | SetupDeferTaskrun).String())
	require.Equal(t, "CQE_MIXED|0x200000", (SetupCQEMixed | 1<<21).String())
	require.Equal(t, "0x80000000", SetupFlags(1<<31).String())

	require.Len(t, SetupFlagList, 21)
	for i, f := range SetupFlagList {
		require.Equal(t, SetupFlags(1)<<i, f, "SetupFlagList[%d]", i)
		require.NotEmpty(t, f.Since(), "%v.Since()", f)
		require.NotContains(t, f.String(), "|", "%d names one flag", i)
	}
	require.Equal(t, "5.1", SetupIOPoll.Since())
	require.Equal(t, "6.1", SetupDeferTaskrun.Since())
	require.Equal(t, "6.18", SetupCQEMixed.Since())
	require.Equal(t, "6.19", SetupSQEMixed.Since())
	require.Equal(t, "", (SetupIOPoll | SetupSQPoll).Since(), "a combination has no release")
	require.Equal(t, "", SetupFlags(1<<30).Since())
}

func TestEnterFlagsString(t *testing.T) {
	require.Equal(t, "0", EnterFlags(0).String())
	require.Equal(t, "GETEVENTS|EXT_ARG", (EnterGetEvents | EnterExtArg).String())
	require.Equal(t, "NO_IOWAIT", EnterNoIOWait.String())
	require.Equal(t, "REGISTERED_RING|0x100", (EnterRegisteredRing | 0x100).String())
}

func TestFeatures(t *testing.T) {
	require.Len(t, FeatureList, 18)
	for i, f := range FeatureList {
		require.Equal(t, Features(1)<<i, f, "FeatureList[%d]", i)
	}
	require.Equal(t, "SINGLE_MMAP|NODROP", (FeatSingleMmap | FeatNoDrop).String())
	require.Equal(t, "NO_IOWAIT|0x40000", (FeatNoIOWait | 1<<18).String())
	require.Equal(t, "0", Features(0).String())
}

func TestRingFlagsString(t *testing.T) {
	require.Equal(t, "NEED_WAKEUP|CQ_OVERFLOW|TASKRUN", (SQNeedWakeup | SQCQOverflow | SQTaskrun).String())
	require.Equal(t, "0x8", SQRingFlags(8).String())
	require.Equal(t, "EVENTFD_DISABLED", CQEventfdDisabled.String())
	require.Equal(t, "EVENTFD_DISABLED|0x2", (CQEventfdDisabled | 2).String())
	require.Equal(t, "0", CQRingFlags(0).String())
}

func TestCQEFlagsString(t *testing.T) {
	require.Equal(t, "0", CQEFlags(0).String())
	require.Equal(t, "MORE|NOTIF", (CQEFMore | CQEFNotif).String())
	require.Equal(t, "BUFFER|MORE|bid=7", (CQEFBuffer | CQEFMore | 7<<CQEBufferShift).String())
	require.Equal(t, "BUFFER|bid=0", CQEFBuffer.String())
	require.Equal(t, "32", CQEF32.String())
	require.Equal(t, "SKIP|0x40", (CQEFSkip | 0x40).String())
	// Upper bits without F_BUFFER are not a buffer id: shown as raw bits.
	require.Equal(t, "MORE|0x30000", (CQEFMore | 3<<CQEBufferShift).String())
}

func TestRegisterOpNames(t *testing.T) {
	require.Len(t, registerOpNames, int(RegisterOpLast))
	require.Len(t, registerOpSince, int(RegisterOpLast))
	for _, c := range []struct {
		op          RegisterOp
		name, since string
	}{
		{RegisterBuffers, "REGISTER_BUFFERS", "5.1"},
		{RegisterProbe, "REGISTER_PROBE", "5.6"},
		{RegisterPbufRing, "REGISTER_PBUF_RING", "5.19"},
		{RegisterZcrxIfq, "REGISTER_ZCRX_IFQ", "6.15"},
		{RegisterResizeRings, "REGISTER_RESIZE_RINGS", "6.13"},
		{RegisterQuery, "REGISTER_QUERY", "6.18"},
		{RegisterBPFFilter, "REGISTER_BPF_FILTER", "7.0"},
		{RegisterOpLast, "REGISTER_OP_38", ""},
		{RegisterProbe | RegisterUseRegisteredRing, "REGISTER_PROBE|USE_REGISTERED_RING", "6.3"},
		{RegisterUseRegisteredRing, "REGISTER_BUFFERS|USE_REGISTERED_RING", "6.3"},
		{RegisterPbufStatus | RegisterUseRegisteredRing, "REGISTER_PBUF_STATUS|USE_REGISTERED_RING", "6.8"},
		{RegisterQuery | RegisterUseRegisteredRing, "REGISTER_QUERY|USE_REGISTERED_RING", "6.18"},
		{RegisterOp(99) | RegisterUseRegisteredRing, "REGISTER_OP_99|USE_REGISTERED_RING", ""},
	} {
		require.Equal(t, c.name, c.op.String(), "RegisterOp(%d).String()", uint32(c.op))
		require.Equal(t, c.since, c.op.Since(), "RegisterOp(%d).Since()", uint32(c.op))
	}
}

func TestReleaseAfter(t *testing.T) {
	require.True(t, releaseAfter("6.13", "6.3"))
	require.True(t, releaseAfter("7.0", "6.19"))
	require.False(t, releaseAfter("6.3", "6.3"))
	require.False(t, releaseAfter("5.19", "6.3"))
}

// TestConstants pins values whose C definitions are not simple shifts.
func TestConstants(t *testing.T) {
	require.Equal(t, uint32(0xffffffff), FileIndexAlloc)
	require.Equal(t, int32(-2), RegisterFilesSkip)
	require.Equal(t, uint32(1<<31), SpliceFdInFixed)
	require.Equal(t, int64(0x8000000), OffCQRing)
	require.Equal(t, int64(0x10000000), OffSQEs)
	require.Equal(t, int64(0x80000000), OffPbufRing)
	require.Equal(t, int64(0xf8000000), OffMmapMask)
	require.Equal(t, uint32(TimeoutBoottime|TimeoutRealtime), TimeoutClockMask)
	require.Equal(t, RegisterOp(1<<31), RegisterUseRegisteredRing)
	require.Equal(t, 16, CQEBufferShift)
}
