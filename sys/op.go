package sys

import "strconv"

// Op is an io_uring request opcode (enum io_uring_op).
type Op uint8

// Opcodes. The kernel release that added each is in brackets.
const (
	OpNop            Op = 0  // IORING_OP_NOP [5.1]
	OpReadv          Op = 1  // IORING_OP_READV [5.1]
	OpWritev         Op = 2  // IORING_OP_WRITEV [5.1]
	OpFsync          Op = 3  // IORING_OP_FSYNC [5.1]
	OpReadFixed      Op = 4  // IORING_OP_READ_FIXED [5.1]
	OpWriteFixed     Op = 5  // IORING_OP_WRITE_FIXED [5.1]
	OpPollAdd        Op = 6  // IORING_OP_POLL_ADD [5.1]
	OpPollRemove     Op = 7  // IORING_OP_POLL_REMOVE [5.1]
	OpSyncFileRange  Op = 8  // IORING_OP_SYNC_FILE_RANGE [5.2]
	OpSendmsg        Op = 9  // IORING_OP_SENDMSG [5.3]
	OpRecvmsg        Op = 10 // IORING_OP_RECVMSG [5.3]
	OpTimeout        Op = 11 // IORING_OP_TIMEOUT [5.4]
	OpTimeoutRemove  Op = 12 // IORING_OP_TIMEOUT_REMOVE [5.5]
	OpAccept         Op = 13 // IORING_OP_ACCEPT [5.5]
	OpAsyncCancel    Op = 14 // IORING_OP_ASYNC_CANCEL [5.5]
	OpLinkTimeout    Op = 15 // IORING_OP_LINK_TIMEOUT [5.5]
	OpConnect        Op = 16 // IORING_OP_CONNECT [5.5]
	OpFallocate      Op = 17 // IORING_OP_FALLOCATE [5.6]
	OpOpenat         Op = 18 // IORING_OP_OPENAT [5.6]
	OpClose          Op = 19 // IORING_OP_CLOSE [5.6]
	OpFilesUpdate    Op = 20 // IORING_OP_FILES_UPDATE [5.6]
	OpStatx          Op = 21 // IORING_OP_STATX [5.6]
	OpRead           Op = 22 // IORING_OP_READ [5.6]
	OpWrite          Op = 23 // IORING_OP_WRITE [5.6]
	OpFadvise        Op = 24 // IORING_OP_FADVISE [5.6]
	OpMadvise        Op = 25 // IORING_OP_MADVISE [5.6]
	OpSend           Op = 26 // IORING_OP_SEND [5.6]
	OpRecv           Op = 27 // IORING_OP_RECV [5.6]
	OpOpenat2        Op = 28 // IORING_OP_OPENAT2 [5.6]
	OpEpollCtl       Op = 29 // IORING_OP_EPOLL_CTL [5.6]
	OpSplice         Op = 30 // IORING_OP_SPLICE [5.7]
	OpProvideBuffers Op = 31 // IORING_OP_PROVIDE_BUFFERS [5.7]
	OpRemoveBuffers  Op = 32 // IORING_OP_REMOVE_BUFFERS [5.7]
	OpTee            Op = 33 // IORING_OP_TEE [5.8]
	OpShutdown       Op = 34 // IORING_OP_SHUTDOWN [5.11]
	OpRenameat       Op = 35 // IORING_OP_RENAMEAT [5.11]
	OpUnlinkat       Op = 36 // IORING_OP_UNLINKAT [5.11]
	OpMkdirat        Op = 37 // IORING_OP_MKDIRAT [5.15]
	OpSymlinkat      Op = 38 // IORING_OP_SYMLINKAT [5.15]
	OpLinkat         Op = 39 // IORING_OP_LINKAT [5.15]
	OpMsgRing        Op = 40 // IORING_OP_MSG_RING [5.18]
	OpFsetxattr      Op = 41 // IORING_OP_FSETXATTR [5.19]
	OpSetxattr       Op = 42 // IORING_OP_SETXATTR [5.19]
	OpFgetxattr      Op = 43 // IORING_OP_FGETXATTR [5.19]
	OpGetxattr       Op = 44 // IORING_OP_GETXATTR [5.19]
	OpSocket         Op = 45 // IORING_OP_SOCKET [5.19]
	OpUringCmd       Op = 46 // IORING_OP_URING_CMD [5.19]
	OpSendZC         Op = 47 // IORING_OP_SEND_ZC [6.0]
	OpSendmsgZC      Op = 48 // IORING_OP_SENDMSG_ZC [6.1]
	OpReadMultishot  Op = 49 // IORING_OP_READ_MULTISHOT [6.7]
	OpWaitid         Op = 50 // IORING_OP_WAITID [6.7]
	OpFutexWait      Op = 51 // IORING_OP_FUTEX_WAIT [6.7]
	OpFutexWake      Op = 52 // IORING_OP_FUTEX_WAKE [6.7]
	OpFutexWaitv     Op = 53 // IORING_OP_FUTEX_WAITV [6.7]
	OpFixedFdInstall Op = 54 // IORING_OP_FIXED_FD_INSTALL [6.8]
	OpFtruncate      Op = 55 // IORING_OP_FTRUNCATE [6.9]
	OpBind           Op = 56 // IORING_OP_BIND [6.11]
	OpListen         Op = 57 // IORING_OP_LISTEN [6.11]
	OpRecvZC         Op = 58 // IORING_OP_RECV_ZC [6.15]
	OpEpollWait      Op = 59 // IORING_OP_EPOLL_WAIT [6.15]
	OpReadvFixed     Op = 60 // IORING_OP_READV_FIXED [6.15]
	OpWritevFixed    Op = 61 // IORING_OP_WRITEV_FIXED [6.15]
	OpPipe           Op = 62 // IORING_OP_PIPE [6.16]
	OpNop128         Op = 63 // IORING_OP_NOP128 [6.19]
	OpUringCmd128    Op = 64 // IORING_OP_URING_CMD128 [6.19]

	// OpLast is one past the highest opcode this package knows.
	OpLast Op = 65 // IORING_OP_LAST [6.19]
)

var opNames = [...]string{
	"NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED", "POLL_ADD",
	"POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG", "TIMEOUT",
	"TIMEOUT_REMOVE", "ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT", "CONNECT",
	"FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE", "STATX", "READ", "WRITE",
	"FADVISE", "MADVISE", "SEND", "RECV", "OPENAT2", "EPOLL_CTL", "SPLICE",
	"PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE", "SHUTDOWN", "RENAMEAT",
	"UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT", "MSG_RING", "FSETXATTR",
	"SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET", "URING_CMD", "SEND_ZC",
	"SENDMSG_ZC", "READ_MULTISHOT", "WAITID", "FUTEX_WAIT", "FUTEX_WAKE",
	"FUTEX_WAITV", "FIXED_FD_INSTALL", "FTRUNCATE", "BIND", "LISTEN", "RECV_ZC",
	"EPOLL_WAIT", "READV_FIXED", "WRITEV_FIXED", "PIPE", "NOP128",
	"URING_CMD128",
}

var opSince = [...]string{
	"5.1", "5.1", "5.1", "5.1", "5.1", "5.1", "5.1", "5.1", "5.2", "5.3", "5.3",
	"5.4", "5.5", "5.5", "5.5", "5.5", "5.5", "5.6", "5.6", "5.6", "5.6", "5.6",
	"5.6", "5.6", "5.6", "5.6", "5.6", "5.6", "5.6", "5.6", "5.7", "5.7", "5.7",
	"5.8", "5.11", "5.11", "5.11", "5.15", "5.15", "5.15", "5.18", "5.19",
	"5.19", "5.19", "5.19", "5.19", "5.19", "6.0", "6.1", "6.7", "6.7", "6.7",
	"6.7", "6.7", "6.8", "6.9", "6.11", "6.11", "6.15", "6.15", "6.15", "6.15",
	"6.16", "6.19", "6.19",
}

// String returns the opcode's name without the IORING_OP_ prefix ("READ").
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "OP_" + strconv.Itoa(int(o))
}

// Since returns the Linux release that added the opcode ("5.6"), or "" when
// the opcode is unknown to this package.
func (o Op) Since() string {
	if int(o) < len(opSince) {
		return opSince[o]
	}
	return ""
}
