// Package spec reads an audit written down: a spec file.
//
// A Spec names the data and its preprocessing (reference.ParsePipeline), the model, the
// method, its variants and settings, the records deleted, the claim, the trials and the
// power, the attacks to run and the outputs (SpecOutputs):
//
//	s, err := spec.LoadSpec("audit.json")
//	if err != nil {
//		return err // an *audit.SpecError naming the file and the field at fault
//	}
//
// ParseSpec and LoadSpec check each field against the same declarations as the flags
// (audit.TrialsParam, audit.EpsilonParam, a method's DemoParams, …): unknown fields are
// refused and every error names the file and the field's path. A spec read for a
// measurement rather than a verdict (no claim) becomes a MeasurementClaim. A spec may
// declare a noise certificate (NoiseCertificate: the sensitivity its proof bounds and the
// σ it adds) for the noisy-release route.
//
// A Spec also carries what verify's routes need of it: the family game and the rank check
// at its settings (Spec.FamilyGame, Spec.RankCheck), the claim audited on models trained
// elsewhere (Spec.SavedClaim), and the checks of the files given against it, which name the
// file, the row and the column at fault (Spec.CheckModels, Spec.CheckScoreColumns).
package spec
