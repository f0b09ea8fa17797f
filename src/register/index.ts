// relaytrace/register — `node --import relaytrace/register app.js`: the process-wide runtime
// (`defaultRuntime()` from "relaytrace") set up from the environment before the app runs.
import { startFromEnvironment } from "./start.js";

await startFromEnvironment();
