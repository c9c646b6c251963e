package estimate

import "gonum.org/v1/gonum/stat/distuv"

func normalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }
