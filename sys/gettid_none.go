//go:build !linux && !darwin && !windows

package sys

// Gettid returns 0 where the calling thread's id is not known here: the
// task layer then never refuses a blocking call as one its own executor
// would have to answer (see task's onThread).
func Gettid() int { return 0 }
