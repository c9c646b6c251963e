package mia

import "runtime"

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
