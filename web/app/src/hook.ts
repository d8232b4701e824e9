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
  // Whether contacts are shown, and the newest snapshot's contact points
  // (none while they are not).
  readonly showContacts: boolean;
  contacts(): { a: string; b: string; x: number; y: number; normalImpulse: number }[];
}

declare global {
  interface Window {
    linkage: LinkageHook;
  }
}
