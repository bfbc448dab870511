/**
 * Decision 090, the slow link: the table frame, the score numbers' table and the donut, which the dashboard
 * draws, in one chunk (app/layout-chunk.ts says why a module shared by some routes is a chunk of its own, and
 * how one module imported by all of them makes one chunk of several). Every route that uses one of them
 * imports this module; nothing is taken from it here.
 */
import "./components/charts/PieChart";
import "./components/quality/QualityNumbers";
import "./components/ui/Table";
