/**
 * The dashboard (`botmesh dashboard`, and `botmesh demo` opens it too): an Ink terminal UI over one
 * scope of any backend. `runDashboard` is the entry point; the rest is exported for tools that
 * embed the view or its state.
 */
export { runDashboard, type DashboardExit, type RunDashboardOptions } from './run-dashboard.js'
export { StoryTeller, type StoryFeed } from './io/story-feed.js'
export { Dashboard, type DashboardProps } from './views/Dashboard.js'
export { connect, type DashboardConnection } from '../operator/dashboard-connection.js'
export { takeSnapshot, type Snapshot, type SnapshotQuery } from './io/snapshot.js'
export { initialState, reduce, type DashboardEvent, type DashboardState } from './state/reduce.js'
export { KEY_HELP } from './state/key-help.js'
export { DASHBOARD_LIMITS } from './limits.js'
export { themeFor, type Theme } from './views/theme.js'
