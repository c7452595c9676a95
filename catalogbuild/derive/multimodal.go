package derive

import (
	"slices"

	"github.com/switchboard/switchboard/gen/api"
)

func init() {
	Register(Deriver{Name: "multimodal", Build: buildMultimodal})
}

// The modalities of the document's MultimodalInputType and MultimodalOutputType, in the order records list them.
var (
	multimodalInputs  = []string{"text", "image", "audio", "video", "pdf"}
	multimodalOutputs = []string{"text", "image", "audio"}
)

// liteInputFlags are the litellm flags that add an input modality to a model models.dev does not list. Image
// comes from supports_vision alone, as in models.json's vision capability.
var liteInputFlags = map[string]string{
	"image": "supports_vision", "audio": "supports_audio_input", "video": "supports_video_input", "pdf": "supports_pdf_input",
}

// multimodalOf lists a model's modalities with models.json's precedence: models.dev's modalities when models.dev
// lists the model, else litellm's flags (supports_vision, supports_audio_input, supports_video_input,
// supports_pdf_input, supports_audio_output) and supported_modalities / supported_output_modalities, text always
// included for these language models. Image limits and formats are the API rule's, for models that take images.
func multimodalOf(m capabilityModel) api.MultimodalRecord {
	rec := api.MultimodalRecord{ProviderId: m.Model.ProviderId, ModelId: m.Model.ModelId, SupportedImageFormats: []string{}}
	in, out := map[string]bool{}, map[string]bool{}
	if m.ModelsDev != nil {
		for _, v := range m.devModalities("input") {
			in[v] = true
		}
		for _, v := range m.devModalities("output") {
			out[v] = true
		}
	} else {
		in["text"], out["text"] = true, true
		for modality, flag := range liteInputFlags {
			if v := m.liteFlag(flag); v != nil && *v {
				in[modality] = true
			}
		}
		for _, v := range anyStrings(m.LiteLLM["supported_modalities"]) {
			if v != "image" {
				in[v] = true
			}
		}
		for _, v := range anyStrings(m.LiteLLM["supported_output_modalities"]) {
			out[v] = true
		}
		if v := m.liteFlag("supports_audio_output"); v != nil && *v {
			out["audio"] = true
		}
	}
	rec.Inputs = enumsOf[api.MultimodalInputType](keepInOrder(multimodalInputs, in))
	rec.Outputs = enumsOf[api.MultimodalOutputType](keepInOrder(multimodalOutputs, out))
	if r := capabilityRuleFor(m.Model.ProviderId, m.Model.ModelId); r != nil && in["image"] {
		rec.MaxImages, rec.MaxImageSizeMb = intOf(r.MaxImages), r.MaxImageMB
		if r.ImageFormats != nil {
			rec.SupportedImageFormats = r.ImageFormats
		}
	}
	return rec
}

// keepInOrder returns the values of order that set holds, in that order.
func keepInOrder(order []string, set map[string]bool) []string {
	out := []string{}
	for _, v := range order {
		if set[v] {
			out = append(out, v)
		}
	}
	return out
}

func buildMultimodal(in *Input) (*Catalog, error) {
	models, err := capabilityCurrentModels(in)
	if err != nil {
		return nil, err
	}
	recs := make([]api.MultimodalRecord, len(models))
	var used []capabilityModel
	for i, m := range models {
		recs[i] = multimodalOf(m)
		if slices.Contains(recs[i].Inputs, "image") {
			used = append(used, m)
		}
	}
	sources, asOf, err := capabilitySources(in, capabilityPages(used, func(r *capabilityRule) string { return r.ImagesURL }))
	if err != nil {
		return nil, err
	}
	return &Catalog{AsOf: asOf, Sources: sources, Records: recs}, nil
}
