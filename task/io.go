package task

// CurrentPos as an offset reads or writes at the file position.
const CurrentPos int64 = -1
