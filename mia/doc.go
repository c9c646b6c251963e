// Package mia will hold membership-inference attacks (loss, LiRA, U-LiRA, model
// difference) and their metrics (ROC, AUC, TPR at low FPR). It is planned in issue #3 and
// empty until then.
package mia
