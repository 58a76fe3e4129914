import Testing

@testable import PluginHost

@Suite("SupervisionPage: one layout, shared by the supervisor and its worker")
struct SupervisionPageTests {
    @Test("no field of the page overlaps another, and every record fits in the header")
    func layoutHasNoOverlap() {
        #expect(SupervisionPage.Layout.overlaps == [])
    }
}
