//go:build linux

package sqe

import "github.com/pure-uring/uring/sys"

// TxTimestamp prepares a multishot request that posts the transmit
// timestamps queued on socket fd's error queue, one CQE per timestamp:
// io_uring_prep_cmd_sock(3) with SOCKET_URING_OP_TX_TIMESTAMP,
// IORING_OP_URING_CMD, Linux 6.16. The socket asks for timestamps with
// SO_TIMESTAMPING, including SOF_TIMESTAMPING_OPT_TSONLY (the kernel skips
// error-queue entries that carry the packet) and usually
// SOF_TIMESTAMPING_OPT_ID. The ring must post 32-byte CQEs (CQE32 or
// CQE_MIXED), else the CQE is EINVAL. Each CQE has res = the timestamp key
// (ee_data: with OPT_ID, the send's counter), F_MORE while armed, the
// SCM_TSTAMP_* type from sys.TimestampTypeShift up, sys.CQEFTstampHW for a
// hardware timestamp, and the time as a sys.IOTimespec in the extras
// (cqe.TxTimestampOf decodes it). It stays armed until cancelled or an error
// ends it. No memory is held.
func TxTimestamp(s *sys.SQE, fd int) error {
	if err := checkFd("TxTimestamp", "fd", fd); err != nil {
		return err
	}
	sockCmd(s, fd, sys.SocketUringOpTXTimestamp, 0, 0, nil)
	return nil
}
