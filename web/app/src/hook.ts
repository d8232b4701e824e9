// window.linkage, the viewer's automation hook: its shape, shared by the app
// (automation.ts fills it in) and the end-to-end tests (web/e2e).
export interface LinkageHook {
  readonly ready: boolean;
  readonly tick: number;
  readonly paused: boolean;
  readonly world: string;
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
