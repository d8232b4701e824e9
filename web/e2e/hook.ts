// The viewer's automation hook (window.linkage) as these tests rely on it;
// the app defines it in web/app/src/automation.ts.
export interface LinkageHook {
  readonly ready: boolean;
  readonly tick: number;
  readonly paused: boolean;
  bodies(): { id: string; name: string; x: number; y: number; z: number; angle: number }[];
  constraints(): { id: string; name: string; type: string; bodies: (string | null)[] }[];
  toScreen(x: number, y: number, z?: number): { x: number; y: number };
  plotSamples(): number;
}

declare global {
  interface Window {
    linkage: LinkageHook;
  }
}
