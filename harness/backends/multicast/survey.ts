/** The device check of the multicast guard (guard.ts) on the real driver, in the harness and in the executor's child. */
import { loadLauncher, probeDevices } from '../gpu/driver.js';
import type { DeviceSurvey } from './guard.js';

/** Attribute queries only: loads the driver, asks each device; creates no context and no object. */
export function surveyDevices(): DeviceSurvey {
  const l = loadLauncher();
  if (!('launcher' in l)) return { unavailable: l.reason };
  const st = l.launcher.status();
  if (!st.driver) return { unavailable: st.reason ?? 'no CUDA driver' };
  try {
    return { devices: probeDevices(l.launcher).devices };
  } catch (e) {
    return { unavailable: `the driver failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}
