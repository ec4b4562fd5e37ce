package feature

// BlockDevice says whether a block device can complete polled I/O (what
// an IORING_SETUP_IOPOLL ring needs for O_DIRECT reads and writes).
type BlockDevice struct {
	Name   string `json:"name"`   // e.g. "nvme0n1"
	Polled bool   `json:"polled"` // queue/io_poll is 1
	Reason string `json:"reason"` // why (not), e.g. "no poll queues (virtio_blk.poll_queues=0)"
}

// Limits are the largest rings the kernel will make.
type Limits struct {
	MaxSQEntries uint32 `json:"max_sq_entries"` // IORING_MAX_ENTRIES
	MaxCQEntries uint32 `json:"max_cq_entries"` // IORING_MAX_CQ_ENTRIES
}
