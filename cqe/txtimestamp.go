//go:build linux

package cqe

import (
	"time"

	"github.com/pure-uring/uring/sys"
)

// TxTimestamp is one transmit timestamp a SOCKET_URING_OP_TX_TIMESTAMP
// request (sqe.TxTimestamp, Linux 6.16) posted.
type TxTimestamp struct {
	Key      uint32    // the timestamp key (ee_data): with SOF_TIMESTAMPING_OPT_ID, the send's counter
	Type     uint32    // SCM_TSTAMP_SND, SCM_TSTAMP_SCHED, SCM_TSTAMP_ACK, ...
	Hardware bool      // the NIC's timestamp (IORING_CQE_F_TSTAMP_HW), else the kernel's
	Time     time.Time // the timestamp (CLOCK_REALTIME, or the NIC's clock)
}

// TxTimestampOf decodes the 32-byte CQE c of a TX_TIMESTAMP request; ok is
// false for the CQE that ends the request (an error, without F_MORE).
func TxTimestampOf(c *sys.CQE32) (ts TxTimestamp, ok bool) {
	if c.Res < 0 || c.Flags&sys.CQEFMore == 0 {
		return TxTimestamp{}, false
	}
	return TxTimestamp{
		Key:      uint32(c.Res),
		Type:     uint32(c.Flags) >> sys.TimestampTypeShift,
		Hardware: c.Flags&sys.CQEFTstampHW != 0,
		Time:     time.Unix(int64(c.BigCQE[0]), int64(c.BigCQE[1])),
	}, true
}
