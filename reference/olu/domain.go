package olu

import "math"

// A Domain is the closed convex feasible set K of online gradient descent.
type Domain interface {
	// Project replaces z by its Euclidean projection Π_K(z).
	Project(z []float64)
	// Contains reports whether z lies in K up to tol.
	Contains(z []float64, tol float64) bool
	// Diameter is D = sup ‖x − y‖ over K in d dimensions (+Inf when unbounded).
	Diameter(d int) float64
	// Radius is sup ‖z‖ over K in d dimensions (+Inf when unbounded).
	Radius(d int) float64
}

// Box is the cube [−R, R]^d: projection clamps each coordinate; D = 2R√d.
type Box struct{ R float64 }

func (b Box) Project(z []float64) {
	for j, v := range z {
		z[j] = math.Max(-b.R, math.Min(b.R, v))
	}
}

func (b Box) Contains(z []float64, tol float64) bool {
	for _, v := range z {
		if math.Abs(v) > b.R+tol {
			return false
		}
	}
	return true
}

func (b Box) Diameter(d int) float64 { return 2 * b.R * math.Sqrt(float64(d)) }
func (b Box) Radius(d int) float64   { return b.R * math.Sqrt(float64(d)) }

// Ball is the centred Euclidean ball of radius R: D = 2R.
type Ball struct{ R float64 }

// Project scales z onto the sphere when it lies outside; a point within rounding of the
// sphere (relative 1e-15) is left alone, so that projecting twice changes nothing.
func (b Ball) Project(z []float64) {
	if n := math.Sqrt(dot(z, z)); n > b.R*(1+1e-15) {
		for j := range z {
			z[j] *= b.R / n
		}
	}
}

func (b Ball) Contains(z []float64, tol float64) bool { return math.Sqrt(dot(z, z)) <= b.R+tol }
func (b Ball) Diameter(int) float64                   { return 2 * b.R }
func (b Ball) Radius(int) float64                     { return b.R }

// Whole is R^d, unconstrained: the exact Gaussian checks on linear costs use it.
type Whole struct{}

func (Whole) Project([]float64)                {}
func (Whole) Contains([]float64, float64) bool { return true }
func (Whole) Diameter(int) float64             { return math.Inf(1) }
func (Whole) Radius(int) float64               { return math.Inf(1) }
