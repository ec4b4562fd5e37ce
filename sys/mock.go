package sys

// The io_uring mock file (include/uapi/linux/io_uring/mock_file.h, Linux
// 6.17): a test driver (CONFIG_IO_URING_MOCK_FILE, root only) whose
// /dev/io_uring_mock takes URING_CMD management commands that create files
// with chosen behaviour (no-wait support, polling, delays) for the kernel's
// own tests. Nothing in this module uses it; it is here so that sys covers
// the whole uapi.

// Mock features (bits of MockProbe.Features: 1 << feature).
const (
	MockFeatCmdCopy  = 0 // IORING_MOCK_FEAT_CMD_COPY [6.17]
	MockFeatRWZero   = 1 // IORING_MOCK_FEAT_RW_ZERO [6.17]
	MockFeatRWNowait = 2 // IORING_MOCK_FEAT_RW_NOWAIT [6.17]
	MockFeatRWAsync  = 3 // IORING_MOCK_FEAT_RW_ASYNC [6.17]
	MockFeatPoll     = 4 // IORING_MOCK_FEAT_POLL [6.17]

	// MockFeatEnd is one past the last feature.
	MockFeatEnd = 5 // IORING_MOCK_FEAT_END [6.17]
)

// MockProbe is struct io_uring_mock_probe [6.17], MockMgrCmdProbe's answer.
type MockProbe struct {
	Features uint64    // features
	Resv     [9]uint64 // __resv
}

// Mock file creation flags (MockCreate.Flags).
const (
	MockCreateFSupportNowait uint32 = 1 // IORING_MOCK_CREATE_F_SUPPORT_NOWAIT [6.17]
	MockCreateFPoll          uint32 = 2 // IORING_MOCK_CREATE_F_POLL [6.17]
)

// MockCreate is struct io_uring_mock_create [6.17], MockMgrCmdCreate's
// argument.
type MockCreate struct {
	OutFd     uint32     // out_fd: out
	Flags     uint32     // flags (IORING_MOCK_CREATE_F_*)
	FileSize  uint64     // file_size
	RWDelayNs uint64     // rw_delay_ns
	Resv      [13]uint64 // __resv
}

// Management commands (cmd_op of a URING_CMD on /dev/io_uring_mock), the
// commands a mock file takes, and their flags.
const (
	MockMgrCmdProbe   = 0 // IORING_MOCK_MGR_CMD_PROBE [6.17]
	MockMgrCmdCreate  = 1 // IORING_MOCK_MGR_CMD_CREATE [6.17]
	MockCmdCopyRegbuf = 0 // IORING_MOCK_CMD_COPY_REGBUF [6.17]
	MockCopyFrom      = 1 // IORING_MOCK_COPY_FROM [6.17]
)
