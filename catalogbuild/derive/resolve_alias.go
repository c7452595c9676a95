package derive

import (
	"strings"

	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "resolve_alias", Needs: []string{"model_versions"}, Build: buildResolveAlias})
}

// resolveAliasRecord is the OpenAPI ResolveAliasRecord schema.
type resolveAliasRecord struct {
	ProviderID           string  `json:"provider_id"`
	Alias                string  `json:"alias"`
	CurrentPinnedVersion *string `json:"current_pinned_version"`
	AutoUpdates          bool    `json:"auto_updates"`
	ReleaseDate          *string `json:"release_date"`
	Notes                *string `json:"notes"`
}

// resolveAliasOf is the resolution view of one model-versions record: the pinned version, its release date
// (from the record's versions) and a note saying where the pointer comes from.
func resolveAliasOf(v modelVersionsRecord) resolveAliasRecord {
	r := resolveAliasRecord{ProviderID: v.ProviderID, Alias: v.Alias, CurrentPinnedVersion: v.CurrentPinnedVersion, AutoUpdates: v.AliasAutoUpdates}
	if v.CurrentPinnedVersion != nil {
		for _, ver := range v.Versions {
			if ver.VersionID == *v.CurrentPinnedVersion {
				r.ReleaseDate = ver.ReleaseDate
			}
		}
		r.Notes = ptrTo("Points to " + *v.CurrentPinnedVersion + " per " + documentedPointers[v.ProviderID+"/"+v.Alias].url + ".")
		return r
	}
	ids := make([]string, len(v.Versions))
	for i, ver := range v.Versions {
		ids[i] = ver.VersionID
	}
	note := "The version this alias points to is not stated in the source data or the provider's model page."
	if len(ids) > 0 {
		note += " Pinned versions, newest first: " + strings.Join(ids, ", ") + "."
	}
	r.Notes = &note
	return r
}

func buildResolveAlias(in *Input) (*Catalog, error) {
	c, err := in.Catalog("model_versions")
	if err != nil {
		return nil, err
	}
	versions, err := seeds.Records[modelVersionsRecord](c)
	if err != nil {
		return nil, err
	}
	recs := make([]resolveAliasRecord, len(versions))
	for i, v := range versions {
		recs[i] = resolveAliasOf(v)
	}
	return &Catalog{AsOf: c.AsOf, Sources: c.Sources, Records: recs}, nil
}
