// What this binary says it is (HostIdentity.current), in the section a running host reads
// from the file installed at its path without running it. HostIdentityTests checks that it is
// what ManifestSection.declaration writes for HostIdentity.current: regenerate it from there
// when the version changes.

@section(".plugin_host_identity") @used
let pluginHostIdentity: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
    0x6172676f7270227b, 0x67756c70223a226d, 0x2274736f682d6e69, 0x6f6973726576222c,
    0x2e322e30223a226e, 0x65707573222c2230, 0x226e6f6973697672, 0x20202020207d313a
)
