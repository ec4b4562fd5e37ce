//go:build linux

package reg

// Buffer tags (IORING_REGISTER_BUFFERS2 and IORING_REGISTER_BUFFERS_UPDATE
// with a tags array, Linux 5.13).
//
// The kernel keeps each registered buffer in a node that every request
// using the slot holds a reference to, taken when the request imports the
// buffer. Update and Unregister only drop the table's reference: the node
// is put when the last request still holding it completes (after that
// request's CQE has been posted), or during the register call when no
// request holds it. Putting a node with a nonzero tag posts one CQE on the
// ring's CQ: user_data = tag, res = 0, flags = 0. A zero tag posts nothing.
// That is Linux 6.13's scheme. Before 6.13 nodes are per ring generation,
// not per buffer: an update (or Unregister) switches to a new node, the old
// one is put when every request that took it has completed and this task's
// cached references have been dropped (at its next io_uring_enter), and
// the tags queued on it are posted from a workqueue, up to a second later;
// Unregister queues none, so it posts no tags at all.
// The CQE is an ordinary one: on a full CQ it overflows like any other
// (kept and flushed later with IORING_FEAT_NODROP), and the reaper must
// recognise it by its user_data, so reserve a user_data range for tags.

// UpdateTagged registers mem in slot index with tag (0 = no tag), as Update
// does (IORING_REGISTER_BUFFERS_UPDATE with a tags array, Linux 5.13). mem
// must lie inside Memory() and must not be nil when tag is nonzero. The
// buffer that was in the slot is released when the last request issued
// with it completes (those requests finish on it), and then posts its own
// tag CQE, if it has one; the new buffer's tag is posted when it is
// released in turn, by a later update or by Unregister.
func (b *Buffers) UpdateTagged(index int, mem []byte, tag uint64) error {
	return b.update("Buffers.UpdateTagged", index, mem, tag)
}

// checkTags checks cfg.Tags against cfg.Count and cfg.Sparse.
func checkTags(fn string, cfg BufferConfig) error {
	if cfg.Tags == nil {
		return nil
	}
	if len(cfg.Tags) != cfg.Count {
		return argErr(fn, "Tags", "has "+itoa(len(cfg.Tags))+" entries, not Count = "+itoa(cfg.Count)+" (nil, or one tag per slot)")
	}
	if cfg.Sparse {
		for i, tag := range cfg.Tags {
			if tag != 0 {
				return argErr(fn, "Tags["+itoa(i)+"]", "= "+hex(tag)+" on an empty (Sparse) slot: attach memory and its tag with UpdateTagged")
			}
		}
	}
	return nil
}
