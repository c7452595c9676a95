package derive

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard/switchboard/catalogbuild"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "audio_pricing", Build: buildAudioPricing})
}

// Audio record types.
const (
	audioSTT = "stt"
	audioTTS = "tts"
)

// audioType tells speech-to-text from text-to-speech for a pricing record of task speech: litellm's mode where
// litellm lists the model, else models.dev's modalities (audio in and text out: stt; audio out: tts), else a
// model ID ending in "tts". "" means neither.
func audioType(model string, f catalogbuild.SourceFacts) string {
	switch f.LiteLLM["mode"] {
	case "audio_transcription":
		return audioSTT
	case "audio_speech":
		return audioTTS
	}
	if mods, ok := f.ModelsDev["modalities"].(map[string]any); ok {
		in, out := anyStrings(mods["input"]), anyStrings(mods["output"])
		switch {
		case slices.Contains(out, "audio"):
			return audioTTS
		case slices.Contains(in, "audio") && slices.Equal(out, []string{"text"}):
			return audioSTT
		}
	}
	if strings.HasSuffix(strings.ToLower(model), "tts") {
		return audioTTS
	}
	return ""
}

// realtimeRule says whether the models it matches can be used in realtime (streaming) mode, from the page in URL.
type realtimeRule struct {
	Providers []string
	Match     func(model string) bool
	Realtime  bool
	Why       string
	URL       string
}

func hasPrefixAny(prefixes ...string) func(string) bool {
	return func(m string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(m, p) {
				return true
			}
		}
		return false
	}
}

// realtimeRules are checked in order; a model no rule matches has realtime_supported null (not confirmed).
var realtimeRules = []realtimeRule{
	{Providers: []string{"openai", "azure-openai"}, Match: func(m string) bool { return strings.Contains(m, "realtime") },
		Realtime: true, Why: "a Realtime API transcription model",
		URL: "https://platform.openai.com/docs/guides/realtime-transcription"},
	{Providers: []string{"openai", "azure-openai"},
		Match: func(m string) bool {
			return hasPrefixAny("gpt-4o-transcribe", "gpt-4o-mini-transcribe")(m) && !strings.Contains(m, "diarize")
		},
		Realtime: true, Why: "streams transcripts (stream=true) and serves Realtime API transcription sessions",
		URL: "https://platform.openai.com/docs/guides/speech-to-text"},
	{Providers: []string{"openai", "azure-openai"}, Match: hasPrefixAny("tts-1", "gpt-4o-mini-tts"),
		Realtime: true, Why: "the Speech API streams audio as it is generated (chunked transfer encoding)",
		URL: "https://platform.openai.com/docs/guides/text-to-speech"},
	{Providers: []string{"deepgram"}, Match: hasPrefixAny("nova", "enhanced", "base"),
		Realtime: true, Why: "Deepgram's Nova, Enhanced and Base models transcribe live audio streams",
		URL: "https://developers.deepgram.com/docs/models-languages-overview"},
	{Providers: []string{"assemblyai"}, Match: func(string) bool { return true },
		Realtime: false, Why: "a pre-recorded (asynchronous) tier; streaming is AssemblyAI's separate streaming model",
		URL: "https://www.assemblyai.com/docs/speech-to-text/pre-recorded-audio/select-the-speech-model"},
	{Providers: []string{"elevenlabs"}, Match: hasPrefixAny("eleven_multilingual_v2"),
		Realtime: true, Why: "usable with ElevenLabs' streaming text-to-speech endpoint",
		URL: "https://elevenlabs.io/docs/api-reference/text-to-speech/stream"},
}

func realtimeOf(providerID, model string) (*bool, *realtimeRule) {
	for i, r := range realtimeRules {
		if slices.Contains(r.Providers, providerID) && r.Match(model) {
			return ptrTo(r.Realtime), &realtimeRules[i]
		}
	}
	return nil, nil
}

// audioPricingOf builds the record of one speech pricing record; ok is false when it is neither stt nor tts.
func audioPricingOf(p seeds.PricingRecord, f catalogbuild.SourceFacts, freeTier map[string]string, priceSources map[string]seeds.Source) (api.AudioPricingRecord, bool) {
	typ := audioType(p.Model, f)
	if typ == "" {
		return api.AudioPricingRecord{}, false
	}
	r := api.AudioPricingRecord{ProviderId: p.ProviderId, Type: api.AudioPricingRecordType(typ), Model: p.Model}
	var notes []string
	if typ == audioSTT {
		r.PricePerMinute = p.Pricing.PerMinuteAudio
	} else {
		r.PricePer1kChars = p.Pricing.Per1kCharacters
		if m := p.Pricing.PerMinuteAudio; m != nil {
			notes = append(notes, fmt.Sprintf("Also priced at %s USD per minute of generated audio.", fmtPrice(*m)))
		}
	}
	if in, out := p.Pricing.InputPer1mTokens, p.Pricing.OutputPer1mTokens; in != nil || out != nil {
		notes = append(notes, fmt.Sprintf("Token prices (pricing catalog): input %s, output %s USD per 1M tokens.",
			fmtOptPrice(in), fmtOptPrice(out)))
	}
	if p.Pricing.PerMinuteAudio == nil && p.Pricing.Per1kCharacters == nil {
		notes = append(notes, "No per-minute or per-character price in the reference data.")
	}
	if from := priceOrigin(p, priceSources); from != "" {
		// Named so that the record cites what its prices rest on, not only the realtime page beside them.
		notes = append(notes, "Prices from "+from+".")
	}
	rt, rule := realtimeOf(p.ProviderId, p.Model)
	r.RealtimeSupported = rt
	if rule != nil {
		notes = append(notes, fmt.Sprintf("Realtime: %s (%s).", rule.Why, rule.URL))
	} else {
		notes = append(notes, "Realtime (streaming) support not confirmed.")
	}
	if ft, ok := freeTier[p.ProviderId]; ok {
		r.FreeTier = ptrTo(ft)
	}
	r.Notes = ptrTo(strings.Join(notes, " "))
	return r, true
}

// priceOrigin names the sources of a pricing record: a data set by its name, a provider's page by its address.
func priceOrigin(p seeds.PricingRecord, priceSources map[string]seeds.Source) string {
	var names []string
	for _, id := range p.Sources {
		switch s, ok := priceSources[id]; {
		case !ok:
		case s.License != nil:
			name, ok := catalogbuild.DataSetNames[id]
			if !ok {
				name = s.Name
			}
			names = append(names, name)
		default:
			names = append(names, s.URL)
		}
	}
	return strings.Join(names, ", ")
}

func fmtPrice(x float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", x), "0"), ".")
}

func fmtOptPrice(x *float64) string {
	if x == nil {
		return "unknown"
	}
	return fmtPrice(*x)
}

// audioPrice is the price a record is sorted by: per minute for stt, per 1k characters for tts.
func audioPrice(r api.AudioPricingRecord) *float64 {
	if r.Type == audioSTT {
		return r.PricePerMinute
	}
	return r.PricePer1kChars
}

// compareAudio is the order of /audio-pricing: stt first, then cheapest first (unknown prices last), ties by
// provider ID then model.
func compareAudio(a, b api.AudioPricingRecord) int {
	if a.Type != b.Type {
		if a.Type == audioSTT {
			return -1
		}
		return 1
	}
	pa, pb := audioPrice(a), audioPrice(b)
	switch {
	case pa == nil && pb != nil:
		return 1
	case pa != nil && pb == nil:
		return -1
	case pa != nil && pb != nil && *pa != *pb:
		return cmp.Compare(*pa, *pb)
	}
	return cmp.Or(strings.Compare(a.ProviderId, b.ProviderId), strings.Compare(a.Model, b.Model))
}

func buildAudioPricing(in *Input) (*Catalog, error) {
	priceCat, err := in.Catalog(seeds.CatalogPricing)
	if err != nil {
		return nil, err
	}
	pricing, err := seeds.Records[seeds.PricingRecord](priceCat)
	if err != nil {
		return nil, err
	}
	freeCat, err := in.Catalog(seeds.CatalogFreeTier)
	if err != nil {
		return nil, err
	}
	free, err := seeds.Records[seeds.FreeTierRecord](freeCat)
	if err != nil {
		return nil, err
	}
	freeTier := map[string]string{}
	for _, f := range free {
		if f.HasFreeTier != nil && *f.HasFreeTier && f.Notes != nil {
			freeTier[f.ProviderId] = *f.Notes
		}
	}
	facts, err := ModelFacts(in)
	if err != nil {
		return nil, err
	}
	priceSources := map[string]seeds.Source{}
	for _, s := range priceCat.Sources {
		priceSources[s.ID] = s
	}
	var recs []api.AudioPricingRecord
	used := map[string]bool{}
	for _, p := range pricing {
		if p.Task != "speech" {
			continue
		}
		r, ok := audioPricingOf(p, facts[p.ProviderId+"/"+p.Model], freeTier, priceSources)
		if !ok {
			return nil, fmt.Errorf("speech model %s/%s is neither speech-to-text nor text-to-speech", p.ProviderId, p.Model)
		}
		recs = append(recs, r)
		used[r.ProviderId] = r.FreeTier != nil || used[r.ProviderId]
	}
	slices.SortFunc(recs, compareAudio)
	return &Catalog{AsOf: max(priceCat.AsOf, freeCat.AsOf), Sources: audioSources(priceCat, freeCat, recs, used), Records: recs}, nil
}

// audioSources are the pricing catalog's sources, the realtime rules' pages of the models listed, and the
// free-tier catalog's pages of the providers whose free tier a record quotes.
func audioSources(priceCat, freeCat *seeds.Catalog, recs []api.AudioPricingRecord, quoted map[string]bool) []seeds.Source {
	src := slices.Clone(priceCat.Sources)
	seen := map[string]bool{}
	add := func(s seeds.Source) {
		if !seen[s.URL] {
			seen[s.URL] = true
			src = append(src, s)
		}
	}
	for _, r := range recs {
		if _, rule := realtimeOf(r.ProviderId, r.Model); rule != nil {
			owner, _ := seeds.Providers().Get(rule.Providers[0])
			add(seeds.Source{Name: owner.Name + " documentation: realtime audio", URL: rule.URL})
		}
	}
	for _, p := range sortedProviders() {
		if !quoted[p.ID] {
			continue
		}
		for _, s := range freeCat.Sources {
			if strings.HasPrefix(s.Name, p.Name+" official page") {
				add(seeds.Source{Name: s.Name + " (free tier)", URL: s.URL, License: s.License})
			}
		}
	}
	return src
}
