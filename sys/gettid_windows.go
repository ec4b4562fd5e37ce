package sys

import "golang.org/x/sys/windows"

// Gettid returns the calling thread's id (GetCurrentThreadId): the task
// layer tells its executor's locked thread from others with it.
func Gettid() int { return int(windows.GetCurrentThreadId()) }
